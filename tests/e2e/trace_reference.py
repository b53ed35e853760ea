"""trace_reference.py — independent reference numbers for trace fixtures.

Computes, with Python's json module only, what profan should store for a
Kineto trace: event counts per table, durations in integer nanoseconds
(from the decimal text, as profan does), the rank, busy unions.  Used by
test_trace.py; never imports anything from profan.
"""
import decimal
import re

CAT_KIND = {
    "kernel": "kernel", "cpu_op": "cpu_op", "operator": "cpu_op",
    "cuda_runtime": "runtime", "runtime": "runtime", "hip_runtime": "runtime",
    "cuda_driver": "runtime", "hip_driver": "runtime",
    "gpu_memcpy": "memcpy", "memcpy": "memcpy",
    "gpu_memset": "memset", "memset": "memset",
    "user_annotation": "user_annotation",
    "gpu_user_annotation": "gpu_user_annotation",
    "cuda_sync": "sync", "python_function": "python_function",
}

STEP = re.compile(r"^ProfilerStep\s*#\s*(\d+)$")


def us_to_ns(v):
    """µs number (int or float as parsed by json) -> int ns, rounding the
    way profan does: first three fraction digits kept, fourth rounds."""
    d = decimal.Decimal(repr(v)) if isinstance(v, float) else decimal.Decimal(v)
    return int((d * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def kind_of(e):
    if e.get("ph") != "X":
        if e.get("ph") in ("i", "I") and e.get("name") in ("[memory]", "[OutOfMemory]"):
            return "memory"
        return None
    return CAT_KIND.get(str(e.get("cat", "")).lower())


def counts(evs):
    out = {}
    for e in evs:
        k = kind_of(e)
        if k and isinstance(e.get("ts"), (int, float)):
            out[k] = out.get(k, 0) + 1
    return out


def dur_sum_ns(evs, kind):
    return sum(max(0, us_to_ns(e.get("dur", 0))) for e in evs
               if kind_of(e) == kind and isinstance(e.get("ts"), (int, float)))


def union_ns(intervals):
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        elif e > cur_e:
            cur_e = e
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def gpu_busy(evs):
    """{device: (busy_ns, wall_ns)} over kernels, memcpys and memsets."""
    per = {}
    for e in evs:
        if kind_of(e) in ("kernel", "memcpy", "memset"):
            s = us_to_ns(e["ts"])
            per.setdefault(e["pid"], []).append((s, s + max(0, us_to_ns(e.get("dur", 0)))))
    out = {}
    for dev, iv in per.items():
        out[dev] = (union_ns(iv), max(e for _, e in iv) - min(s for s, _ in iv))
    return out


def steps(evs):
    """{N: dur_ns} of CPU ProfilerStep#N annotations (first one wins)."""
    out = {}
    for e in evs:
        if kind_of(e) == "user_annotation":
            m = STEP.match(e.get("name", ""))
            if m and int(m.group(1)) not in out:
                out[int(m.group(1))] = us_to_ns(e.get("dur", 0))
    return out


def kernel_totals(evs):
    """{kernel name: (count, total_ns)}"""
    out = {}
    for e in evs:
        if kind_of(e) == "kernel":
            c, t = out.get(e["name"], (0, 0))
            out[e["name"]] = (c + 1, t + max(0, us_to_ns(e.get("dur", 0))))
    return out
