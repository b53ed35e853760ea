#!/usr/bin/env python3
"""make_snapshot.py — builds a large CUDA memory snapshot for the benchmark
by repeating the device trace of a real fixture N times.

usage: python3 bench/make_snapshot.py SRC.pickle N OUT.pickle

The source is read with an Unpickler that refuses every global (a snapshot
is plain data), the trace entries of each device are repeated N times with
their time_us shifted past the previous copy, and the result is written
with pickle protocol 4, as torch.cuda.memory._dump_snapshot does.
"""
import pickle
import sys


class PlainData(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError("refusing %s.%s" % (module, name))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(src, "rb") as f:
        snap = PlainData(f).load()
    traces = snap.get("device_traces", [])
    for d, entries in enumerate(traces):
        if not entries:
            continue
        times = [e.get("time_us", 0) for e in entries]
        span = (max(times) - min(times)) + 1 if times else 1
        grown = []
        for k in range(n):
            for e in entries:
                c = dict(e)
                if "time_us" in c:
                    c["time_us"] = c["time_us"] + k * span
                grown.append(c)
        traces[d] = grown
    with open(out, "wb") as f:
        pickle.dump(snap, f, protocol=4)


if __name__ == "__main__":
    main()
