#!/usr/bin/env python3
"""hta_synth.py — synthetic Kineto traces with known HTA-analysis answers.

Each scenario is one rank, one ProfilerStep, integer-µs timestamps, and
every number test_hta.py expects is stated next to the events that make
it.  Deterministic.

  cpu_bound   the CPU launches a 10 µs kernel every 100 µs: the queue is
              empty between launches, every gap is host wait.
  gpu_bound   the CPU launches 40 kernels of 1 ms in 200 µs: the queue
              fills to 39 and drains; gaps of 2 µs are kernel wait.
  copy_bound  four 100 MB host-to-device copies of 10 ms each (10 GB/s)
              and a 1 MB device-to-host copy of 1 ms, little compute.
  hand_path   a step whose critical path is drawn by hand (see
              HAND_PATH below), with a sync and an event wait between
              two streams.

usage: python3 hta_synth.py OUTDIR   (writes OUTDIR/<scenario>.json)
"""
import json
import os
import sys

PID, TID, TID_BWD = 100, 100, 101
T0 = 1700000000000000                    # µs, absolute


class Builder:
    def __init__(self):
        self.ev, self.corr = [], 0

    def op(self, name, ts, dur, tid=TID, cat="cpu_op"):
        self.ev.append({"ph": "X", "cat": cat, "name": name, "pid": PID,
                        "tid": tid, "ts": T0 + ts, "dur": dur, "args": {}})

    def launch(self, ts, dur, kname, kts, kdur, stream=7, cat="kernel",
               call="cudaLaunchKernel", tid=TID, nbytes=None):
        self.corr += 1
        c = self.corr
        self.ev.append({"ph": "X", "cat": "cuda_runtime", "name": call,
                        "pid": PID, "tid": tid, "ts": T0 + ts, "dur": dur,
                        "args": {"correlation": c}})
        a = {"correlation": c, "stream": stream, "device": 0}
        if nbytes is not None:
            a["bytes"] = nbytes
        self.ev.append({"ph": "X", "cat": cat, "name": kname, "pid": 0,
                        "tid": stream, "ts": T0 + kts, "dur": kdur, "args": a})

    def call(self, name, ts, dur, tid=TID):
        self.corr += 1
        self.ev.append({"ph": "X", "cat": "cuda_runtime", "name": name,
                        "pid": PID, "tid": tid, "ts": T0 + ts, "dur": dur,
                        "args": {"correlation": self.corr}})

    def step(self, ts, dur, n=1):
        self.op("ProfilerStep#%d" % n, ts, dur, cat="user_annotation")

    def doc(self):
        return {"schemaVersion": 1, "deviceProperties": [],
                "traceEvents": self.ev}


def cpu_bound():
    """20 kernels of 10 µs, launched every 100 µs (call 5 µs, kernel 4 µs
    after the call starts).  19 idle gaps of 90 µs, all host wait; queue:
    +1 at each call start, -1 four µs later: empty 96% of the time."""
    b = Builder()
    b.step(0, 2000)
    for k in range(20):
        t = 10 + 100 * k
        b.op("aten::relu", t - 5, 20)
        b.launch(t, 5, "relu_kernel", t + 4, 10)
    return b


def gpu_bound():
    """40 kernels of 1000 µs launched every 5 µs from 10 µs; each starts 2
    µs after the previous one ends (kernel wait 2 µs x 39).  The queue
    peaks at 39 (all launched while the first runs)."""
    b = Builder()
    b.step(0, 41000)
    start = 20
    for k in range(40):
        t = 10 + 5 * k
        b.launch(t, 3, "gemm_kernel", start, 1000)
        start += 1002
    b.call("cudaDeviceSynchronize", 300, 40700)
    return b


def copy_bound():
    """4 HtoD copies of 100,000,000 bytes in 10,000 µs (10 GB/s), a
    DtoH copy of 1,000,000 bytes in 1,000 µs (1 GB/s) and a 50 µs kernel.
    The copies are from pageable memory: each call blocks until its copy
    ended, so the copies are on the critical path (41 of 43 ms)."""
    b = Builder()
    b.step(0, 43000)
    t = 10
    for k in range(4):      # pageable: the call returns after the copy
        b.launch(t, 10010, "Memcpy HtoD (Pageable -> Device)", t + 5, 10000,
                 cat="gpu_memcpy", call="cudaMemcpyAsync",
                 nbytes=100000000)
        t += 10020
    b.launch(t, 5, "add_kernel", t + 5, 50)
    b.launch(t + 100, 1010, "Memcpy DtoH (Device -> Pageable)", t + 105, 1000,
             cat="gpu_memcpy", call="cudaMemcpyAsync", nbytes=1000000)
    return b


# The hand-drawn step (µs from the step start, step = [0, 600]):
#   CPU  opA [0,100) with launch call [10,20) of K1 (stream 7) and launch
#        call [30,35) of K2 (stream 9); opB [100,150);
#        cudaDeviceSynchronize [150,420); opC [420,600).
#   GPU  K1 stream 7 [25,300); K2 stream 9 [300,400) (waits on an event
#        recorded after K1: it was launched at 30 but starts at 300).
# Walking back from 600: opC 420..600 (cpu_op 180); the sync returned at
# 420 after K2 ended at 400 (sync 20); K2 400..300 (kernel 100); K2 was
# ready at 30 (launch) but started 270 later: the op of another stream
# that ended by then is K1 (gpu_wait 0); K1 300..25 (kernel 275); K1's
# stream was free, its launch started at 10 (launch 15); opA 10..0
# (cpu_op 10).  Total 600.
HAND_PATH = [("cpu_op", 0, 10, "opA"), ("launch", 10, 15, "K1"),
             ("kernel", 25, 275, "K1"), ("kernel", 300, 100, "K2"),
             ("sync", 400, 20, "cudaDeviceSynchronize"),
             ("cpu_op", 420, 180, "opC")]


def hand_path():
    b = Builder()
    b.step(0, 600)
    b.op("opA", 0, 100)
    b.launch(10, 10, "K1", 25, 275, stream=7)
    b.launch(30, 5, "K2", 300, 100, stream=9)
    b.op("opB", 100, 50)
    b.call("cudaDeviceSynchronize", 150, 270)
    b.op("opC", 420, 180)
    return b


def gated(seed, slow=None, slow_us=0):
    """Ten ops each launching a distinct kernel K0..K9 (15-25 µs, random
    with `seed`), then cudaDeviceSynchronize and a final op.  Without
    `slow` the GPU keeps up and the step is CPU-bound: no kernel is on the
    path for long.  With slow=k, kernel Kk takes slow_us µs and gates the
    step: the sync waits for it, so it must be the path's top contributor."""
    import random
    rnd = random.Random(seed)
    b = Builder()
    t = 5
    ends = []
    for k in range(10):
        d = rnd.randint(40, 60)
        b.op("op%d" % k, t, d)
        kd = slow_us if k == slow else rnd.randint(15, 25)
        start = max([t + 12] + ends[-1:])
        b.launch(t + 3, 5, "K%d" % k, start, kd)
        ends.append(start + kd)
        t += d + rnd.randint(1, 5)
    sync_end = max(t + 10, ends[-1] + 3)
    b.call("cudaDeviceSynchronize", t, sync_end - t)
    b.op("optimizer", sync_end, 30)
    b.step(0, sync_end + 35)
    return b


SCENARIOS = {"cpu_bound": cpu_bound, "gpu_bound": gpu_bound,
             "copy_bound": copy_bound, "hand_path": hand_path}


def write(outdir, name):
    path = os.path.join(outdir, name + ".json")
    with open(path, "w") as f:
        json.dump(SCENARIOS[name]().doc(), f)
    return path


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(outdir, exist_ok=True)
    for name in SCENARIOS:
        print(write(outdir, name))


if __name__ == "__main__":
    main()
