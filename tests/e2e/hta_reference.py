"""hta_reference.py — independent reference numbers for the HTA analyses.

Computes from a Kineto trace's JSON, with Python only, what profan's HTA
views and queries should report: temporal breakdown, overlap slices, idle
breakdown per stream, launch queue statistics, memory bandwidth, kernel
sequences and GPU time per annotation path.  Used by test_hta.py; never
imports or reads anything from profan.

Times are integer ns from the decimal µs text (trace_reference.us_to_ns),
as profan stores them; only differences are compared, so the time origin
of a trace does not matter.
"""
import collections
import math

from trace_reference import us_to_ns

GPU_CATS = {"kernel": "kernel", "gpu_memcpy": "memcpy", "memcpy": "memcpy",
            "gpu_memset": "memset", "memset": "memset"}
RUNTIME_CATS = {"cuda_runtime", "runtime", "cuda_driver", "hip_runtime",
                "hip_driver"}
# The coarse kernel categories profan ships (schema 004): the first
# matching substring wins, case-insensitive.  Written out here so the
# oracle does not read profan's tables.
# Since issue 13 communication also covers the all-reduce kernels of
# PyTorch symmetric memory and of the vLLM/TensorRT-LLM custom all-reduce.
COMM_PATTERNS = ("nccl", "rccl", "allreduce", "allgather", "reduce_scatter",
                 "msccl", "multimem_all_reduce", "multimem_all_gather",
                 "one_shot_all_reduce", "two_shot_all_reduce",
                 "cross_device_reduce")
MEMORY_PATTERNS = ("memcpy", "memset")
KERNEL_WAIT_NS = 30000


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def kernel_class(name):
    low = name.lower()
    if any(p in low for p in COMM_PATTERNS):
        return "comm"
    if any(p in low for p in MEMORY_PATTERNS):
        return "memory"
    return "compute"


class Trace:
    """The rows of one single-rank trace the analyses need."""

    def __init__(self, evs):
        self.gpu, self.runtime, self.annotations = [], {}, []
        self.gpu_annotations = []
        for i, e in enumerate(evs):
            if not isinstance(e, dict) or e.get("ph") != "X":
                continue
            if not _num(e.get("ts")) or not _num(e.get("dur", 0)):
                continue
            cat = str(e.get("cat", "")).lower()
            args = e.get("args") or {}
            ts, dur = us_to_ns(e["ts"]), max(0, us_to_ns(e.get("dur", 0)))
            if cat in GPU_CATS:
                kind = GPU_CATS[cat]
                name = str(e.get("name", ""))
                self.gpu.append({
                    "i": i, "kind": kind, "ts": ts, "dur": dur, "end": ts + dur,
                    "device": e.get("pid"), "stream": e.get("tid"),
                    "name": name, "corr": args.get("correlation"),
                    "bytes": args.get("bytes"),
                    "gbps_arg": args.get("memory bandwidth (GB/s)"),
                    "cls": kernel_class(name) if kind == "kernel" else "memory"})
            elif cat in RUNTIME_CATS and args.get("correlation") is not None:
                self.runtime[args["correlation"]] = {
                    "ts": ts, "end": ts + dur, "tid": e.get("tid"),
                    "name": str(e.get("name", ""))}
            elif cat == "gpu_user_annotation":
                self.gpu_annotations.append({
                    "ts": ts, "end": ts + dur, "device": e.get("pid"),
                    "stream": e.get("tid"), "name": str(e.get("name", ""))})
            elif cat == "user_annotation":
                self.annotations.append({"i": i, "ts": ts, "dur": dur,
                                         "end": ts + dur, "tid": e.get("tid"),
                                         "name": str(e.get("name", ""))})
        for g in self.gpu:
            r = self.runtime.get(g["corr"]) if g["corr"] is not None else None
            g["launch"] = r

    def streams(self):
        out = collections.defaultdict(list)
        for g in self.gpu:
            out[(g["device"], g["stream"])].append(g)
        for v in out.values():
            v.sort(key=lambda g: (g["ts"], g["kind"] != "kernel", g["i"]))
        return out


def percentile(values, q):
    """numpy's default (linear interpolation between closest ranks)."""
    v = sorted(values)
    if not v:
        return None
    pos = (len(v) - 1) * q
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def overlap_slices(t):
    """{(compute, comm, memory): ns} over the GPU span, per device."""
    out = collections.defaultdict(lambda: collections.Counter())
    by_dev = collections.defaultdict(list)
    for g in t.gpu:
        by_dev[g["device"]].append(g)
    for dev, ops in by_dev.items():
        delta = collections.defaultdict(lambda: [0, 0, 0])
        idx = {"compute": 0, "comm": 1, "memory": 2}
        for g in ops:
            delta[g["ts"]][idx[g["cls"]]] += 1
            delta[g["end"]][idx[g["cls"]]] -= 1
        pts = sorted(delta)
        live = [0, 0, 0]
        for a, b in zip(pts, pts[1:]):
            for k in range(3):
                live[k] += delta[a][k]
            key = tuple(int(x > 0) for x in live)
            out[dev][key] += b - a
    return out


def temporal(t):
    """{device: (span, idle, compute, non_compute)} in ns."""
    res = {}
    for dev, sl in overlap_slices(t).items():
        span = sum(sl.values())
        idle = sl.get((0, 0, 0), 0)
        comp = sum(v for k, v in sl.items() if k[0])
        res[dev] = (span, idle, comp, span - idle - comp)
    return res


def idle_rows(t):
    """{(device, stream): [(category, gap_ns, ts, kind, launch_ts)]}: each
    idle interval with the GPU op after it (its start, kind and its launch
    call's start, None without one)."""
    out = {}
    for key, ops in t.streams().items():
        rows, prev_end = [], None
        for g in ops:
            if prev_end is not None and g["ts"] > prev_end:
                gap = g["ts"] - prev_end
                r = g["launch"]
                if r is not None and r["ts"] > prev_end:
                    cat = "host_wait"
                elif gap < KERNEL_WAIT_NS:
                    cat = "kernel_wait"
                else:
                    cat = "other"
                rows.append((cat, gap, g["ts"], g["kind"],
                             r["ts"] if r is not None else None))
            prev_end = g["end"] if prev_end is None else max(prev_end, g["end"])
        out[key] = rows
    return out


def idle_intervals(t):
    """{(device, stream): [(category, gap_ns)]}"""
    return {k: [r[:2] for r in rows] for k, rows in idle_rows(t).items()}


def queue_limit(call_name):
    """Launch queue length at which a call blocks: CUDA 1024; ROCm (hip*)
    none known (launches at 1,840 queued take 3 us on the MI300X fixture)."""
    return None if call_name.startswith("hip") else 1024


def queue_rows(t):
    """{(device, stream): [(ts, length, next_ts, limit, ops)]}, launches
    first at ties.  One entry per launch call (correlation id) and stream:
    +1 at the call's start, -1 when its first op on the stream starts (a
    CUDA graph launch of N kernels is one entry); ops: the call's ops on
    the stream."""
    out = {}
    for key, ops in t.streams().items():
        first, count = {}, collections.Counter()
        for g in ops:
            if g["launch"] is None:
                continue
            count[g["corr"]] += 1
            if g["corr"] not in first or g["ts"] < first[g["corr"]]["ts"]:
                first[g["corr"]] = g
        ev = []
        for g in first.values():
            lim = queue_limit(g["launch"]["name"])
            ev.append((g["launch"]["ts"], -1, 1, lim, count[g["corr"]]))
            ev.append((g["ts"], 1, -1, lim, count[g["corr"]]))
        ev.sort(key=lambda x: (x[0], x[1]))
        q, rows = 0, []
        for j, (ts, _, d, lim, n) in enumerate(ev):
            q += d
            nxt = ev[j + 1][0] if j + 1 < len(ev) else None
            rows.append((ts, q, nxt, lim, n))
        if rows:
            out[key] = rows
    return out


def queue_series(t):
    """{(device, stream): [(ts, length, next_ts, limit)]} (queue_rows)."""
    return {k: [r[:4] for r in rows] for k, rows in queue_rows(t).items()}


def queue_stats(rows):
    vals = [r[1] for r in rows]
    span = rows[-1][0] - rows[0][0]
    tw = sum(q * (n - ts) for ts, q, n, _ in rows if n is not None)
    empty = sum(n - ts for ts, q, n, _ in rows if n is not None and q == 0)
    blocked = sum(n - ts for ts, q, n, lim in rows
                  if n is not None and lim is not None and q >= lim)
    return {"changes": len(vals), "mean": sum(vals) / len(vals),
            "p50": percentile(vals, .5), "p75": percentile(vals, .75),
            "p95": percentile(vals, .95), "max": max(vals),
            "tw_mean": tw / max(span, 1), "empty_pct": 100.0 * empty / max(span, 1),
            "blocked_ns": blocked}


def memory_bw(t):
    """{kind: dict(count, bytes, dur, gbps list)} for memcpy / memset."""
    out = {}
    for g in t.gpu:
        if g["kind"] == "kernel":
            continue
        if g["kind"] == "memset":
            kind = "Memset"
        else:
            n = g["name"]
            d = next((x for x in ("HtoD", "DtoH", "DtoD", "HtoH", "PtoP")
                      if x in n), "unknown")
            kind = "Memcpy " + d
        s = out.setdefault(kind, {"count": 0, "bytes": 0, "dur": 0, "gbps": []})
        s["count"] += 1
        s["dur"] += g["dur"]
        if g["bytes"] is not None:
            s["bytes"] += g["bytes"]
        # Kineto's own bandwidth (exact duration) where it wrote one
        if _num(g["gbps_arg"]) and g["gbps_arg"] > 0:
            s["gbps"].append(float(g["gbps_arg"]))
        elif g["bytes"] is not None and g["dur"] > 0:
            s["gbps"].append(g["bytes"] / g["dur"])
    return out


def kernel_sequences(t, length):
    """Counter {(stream, names tuple): count} of consecutive kernels."""
    c = collections.Counter()
    for (dev, stream), ops in t.streams().items():
        ks = [g for g in ops if g["kind"] == "kernel"]
        for j in range(len(ks) - length + 1):
            c[(stream, tuple(g["name"] for g in ks[j:j + length]))] += 1
    return c


def annotation_paths(t):
    """{path: (ops, gpu_ns)} inclusive, ProfilerStep ranges left out;
    GPU-side annotation ranges as 'gpu: NAME'."""
    ann = [a for a in t.annotations if not a["name"].startswith("ProfilerStep#")]
    by_tid = collections.defaultdict(list)
    for a in ann:
        by_tid[a["tid"]].append(a)

    def innermost(tid, lo, hi, skip=None):
        best = None
        for a in by_tid.get(tid, ()):
            if a is skip or not (a["ts"] <= lo and a["end"] >= hi):
                continue
            if skip is not None and not (a["ts"] < skip["ts"] or
                                         a["dur"] > skip["dur"] or
                                         a["i"] < skip["i"]):
                continue
            if best is None or (a["ts"], -a["dur"], -a["i"]) > \
                    (best["ts"], -best["dur"], -best["i"]):
                best = a
        return best

    path = {}

    def path_of(a):
        if a["i"] not in path:
            p = innermost(a["tid"], a["ts"], a["end"], skip=a)
            path[a["i"]] = a["name"] if p is None else path_of(p) + " / " + a["name"]
        return path[a["i"]]

    out = collections.defaultdict(lambda: [0, 0])
    for g in t.gpu:
        r = g["launch"]
        if r is None:
            continue
        a = innermost(r["tid"], r["ts"], r["ts"])
        if a is None:
            continue
        p = path_of(a)
        parts = p.split(" / ")
        for k in range(1, len(parts) + 1):
            pre = " / ".join(parts[:k])
            out[pre][0] += 1
            out[pre][1] += g["dur"]
    for a in t.gpu_annotations:           # GPU-side ranges: ops inside
        for g in t.gpu:
            if (g["device"], g["stream"]) == (a["device"], a["stream"]) \
                    and a["ts"] <= g["ts"] < a["end"]:
                out["gpu: " + a["name"]][0] += 1
                out["gpu: " + a["name"]][1] += g["dur"]
    return out
