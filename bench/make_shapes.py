#!/usr/bin/env python3
"""make_shapes.py — synthetic trace shapes for bench.py, built from a real
trace (normally hta-diff-control-a100-rank3), written at 1x; bench.py then
scales them with ../shared/tools/scale-trace like the real fixtures.

usage: make_shapes.py SRC(.json|.json.gz) SHAPE OUT.json
SHAPE:
  2021     the 2021 Kineto layout: categories Operator/Runtime/Kernel, string
           tids, CPU ops of each thread written in END order (children before
           their parent, as the 2021 profiler did), float timestamps
  stack    with_stack=True: every top-level CPU op wrapped in a chain of four
           python_function events (nn.Module / file.py(line): fn) with
           Python id / Python parent id, written before the ops they enclose
  memory   profile_memory=True: two [memory] instant events (alloc, free)
           per CPU op, with Addr / Bytes / Total Allocated / Total Reserved
"""
import gzip
import json
import sys


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def shape_2021(doc):
    cat = {"cpu_op": "Operator", "cuda_runtime": "Runtime", "kernel": "Kernel",
           "gpu_memcpy": "Memcpy", "gpu_memset": "Memset"}
    out, cpu = [], {}
    for e in doc["traceEvents"]:
        if e.get("cat") in cat:
            e["cat"] = cat[e["cat"]]
        if "tid" in e and isinstance(e["tid"], int):
            e["tid"] = str(e["tid"])
        if isinstance(e.get("ts"), int) and e.get("ph") == "X":
            e["ts"] = e["ts"] + 0.25
        if e.get("cat") == "Operator" and e.get("ph") == "X":
            cpu.setdefault(e["tid"], []).append(e)
        else:
            out.append(e)
    # per thread: ops by end time, the enclosing op after what it encloses
    for ops in cpu.values():
        ops.sort(key=lambda e: (e["ts"] + e.get("dur", 0), -e["ts"]))
        out.extend(ops)
    doc["traceEvents"] = out


def shape_stack(doc):
    ev = doc["traceEvents"]
    ops = sorted((e for e in ev if e.get("cat") == "cpu_op" and e.get("ph") == "X"),
                 key=lambda e: (e["tid"], e["ts"], -e.get("dur", 0)))
    end = {}
    py, pid = [], 1
    for e in ops:
        t = e["tid"]
        if e["ts"] < end.get(t, -1):
            continue                    # nested: its top-level op has the chain
        end[t] = e["ts"] + e.get("dur", 0)
        parent = 0
        for lvl in range(4):
            name = ("nn.Module: Block_%d" % (pid % 7) if lvl == 0 else
                    "model/layers.py(%d): forward" % (100 + 10 * lvl + pid % 5))
            py.append({"ph": "X", "cat": "python_function", "name": name,
                       "pid": e["pid"], "tid": t, "ts": e["ts"] - 4 + lvl,
                       "dur": e.get("dur", 0) + 8 - 2 * lvl,
                       "args": {"Python parent id": parent, "Python id": pid,
                                "Python thread": 0}})
            parent, pid = pid, pid + 1
    ev.extend(py)
    ev.sort(key=lambda e: (e.get("ph") != "M", e.get("ts", 0)))


def shape_memory(doc):
    ev = doc["traceEvents"]
    mem, total, addr = [], 1 << 30, 0x7f0000000000
    for e in ev:
        if e.get("cat") != "cpu_op" or e.get("ph") != "X":
            continue
        size = 512 * (1 + (addr >> 9) % 64)
        for ts, b in ((e["ts"] + 1, size), (e["ts"] + max(e.get("dur", 2), 2) - 1, -size)):
            total += b
            mem.append({"ph": "i", "cat": "cpu_instant_event", "s": "t",
                        "name": "[memory]", "pid": e["pid"], "tid": e["tid"],
                        "ts": ts, "args": {"Total Reserved": 4 << 30,
                                           "Total Allocated": total, "Bytes": b,
                                           "Addr": addr, "Device Id": 0,
                                           "Device Type": 1}})
        addr += 512
    ev.extend(mem)
    ev.sort(key=lambda e: (e.get("ph") != "M", e.get("ts", 0)))


def main():
    if len(sys.argv) != 4 or sys.argv[2] not in ("2021", "stack", "memory"):
        sys.exit("usage: make_shapes.py SRC 2021|stack|memory OUT.json")
    doc = load(sys.argv[1])
    {"2021": shape_2021, "stack": shape_stack, "memory": shape_memory}[sys.argv[2]](doc)
    with open(sys.argv[3] + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
    import os
    os.replace(sys.argv[3] + ".tmp", sys.argv[3])


if __name__ == "__main__":
    main()
