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


def kind_of(e, legacy=False):
    """The table an event goes to, or None.  legacy: the events of a bare
    top-level array (the exporter of a PyTorch without Kineto), where a
    complete event without "cat" is a CPU function unless its pid is
    "CUDA functions" (per-op CUDA ranges, not kernels)."""
    if e.get("ph") != "X":
        if e.get("ph") in ("i", "I") and e.get("name") in ("[memory]", "[OutOfMemory]"):
            return "memory"
        return None
    if legacy and "cat" not in e:
        return None if e.get("pid") == "CUDA functions" else "cpu_op"
    return CAT_KIND.get(str(e.get("cat", "")).lower())


def counts(evs, legacy=False):
    out = {}
    for e in evs:
        k = kind_of(e, legacy)
        if k and isinstance(e.get("ts"), (int, float)):
            out[k] = out.get(k, 0) + 1
    return out


def self_ns(ops):
    """Self time of CPU ops: [(thread, ts_ns, dur_ns), ...] -> list of
    dur minus the durations of the direct children, where a child is an op
    of the same thread inside the parent's interval (outer first on equal
    starts: the longer one, then the earlier in the list)."""
    order = sorted(range(len(ops)),
                   key=lambda i: (ops[i][0], ops[i][1], -ops[i][2], i))
    out = [ops[i][2] for i in range(len(ops))]
    stack = []
    thread = None
    for i in order:
        t, ts, dur = ops[i]
        if t != thread:
            stack, thread = [], t
        while stack and ts + dur > ops[stack[-1]][1] + ops[stack[-1]][2]:
            stack.pop()
        if stack:
            out[stack[-1]] -= dur
        stack.append(i)
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


# ------------------------------------------------- independent sweeps

# A communication kernel: its name holds one of these (case-insensitive);
# the coarse scheme's 'comm' rules of schema/004-categories.sql, restated.
COMM_PATTERNS = ("nccl", "rccl", "allreduce", "allgather", "reduce_scatter")
# The classes of the wall-time sweep, highest priority first.
PRIORITY = ("kernel", "memcpy", "memset", "comm", "runtime", "cpu")


def is_comm(name):
    n = name.lower()
    return any(p in n for p in COMM_PATTERNS)


def span(e):
    """(start_ns, end_ns) of an event, its duration clamped at 0."""
    s = us_to_ns(e["ts"])
    return s, s + max(0, us_to_ns(e.get("dur", 0)))


def merge(intervals):
    """Sorted disjoint union of (s, e) intervals (touching ones joined)."""
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return [tuple(x) for x in out]


def intersect_ns(a, b):
    """Length of the intersection of two disjoint sorted unions."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def class_intervals(evs):
    """{class: [(s, e)]} of the wall-time sweep's classes: compute kernels,
    memcpys, memsets, communication kernels, runtime/driver calls and CPU
    operators (every cpu_op: nested ones lie inside their parents)."""
    out = {c: [] for c in PRIORITY}
    for e in evs:
        k = kind_of(e)
        if k is None or not isinstance(e.get("ts"), (int, float)):
            continue
        if k == "kernel":
            c = "comm" if is_comm(e.get("name", "")) else "kernel"
        elif k in ("memcpy", "memset", "runtime"):
            c = k
        elif k == "cpu_op":
            c = "cpu"
        else:
            continue
        out[c].append(span(e))
    return out


def step_spans(evs):
    """[(start_ns, end_ns, N)] of the CPU ProfilerStep#N annotations (first
    one of each N), in start order."""
    seen, out = set(), []
    for e in evs:
        if kind_of(e) == "user_annotation" and isinstance(e.get("ts"), (int, float)):
            m = STEP.match(e.get("name", ""))
            if m and int(m.group(1)) not in seen:
                seen.add(int(m.group(1)))
                s, t = span(e)
                out.append((s, t, int(m.group(1))))
    return sorted(out)


def priority_sweep(iv, steps):
    """{(step N or None, class): ns}: the time from the first event (or the
    first step's start, if earlier) to the last end (or the last step's
    end, if later), each instant given to the highest-priority class
    running then ('idle' when none), and to the step it falls in (None:
    outside every step)."""
    unions = {c: merge(iv[c]) for c in PRIORITY}
    allv = [x for c in PRIORITY for x in iv[c]]
    if not allv:
        return {}
    t0, t1 = min(s for s, _ in allv), max(e for _, e in allv)
    if steps:
        t0 = min(t0, steps[0][0])
        t1 = max(t1, max(e for _, e, _ in steps))
    pts = {t0, t1}
    for u in unions.values():
        for s, e in u:
            pts.update((s, e))
    for s, e, _ in steps:
        pts.update((s, e))
    pts = sorted(p for p in pts if t0 <= p <= t1)
    ptr = {c: 0 for c in PRIORITY}
    j = 0
    out = {}
    for a, b in zip(pts, pts[1:]):
        top = "idle"
        for c in PRIORITY:
            u, i = unions[c], ptr[c]
            while i < len(u) and u[i][1] <= a:
                i += 1
            ptr[c] = i
            if i < len(u) and u[i][0] <= a:
                top = c
                break
        while j < len(steps) and steps[j][1] <= a:
            j += 1
        slot = steps[j][2] if j < len(steps) and steps[j][0] <= a else None
        out[(slot, top)] = out.get((slot, top), 0) + (b - a)
    return out


def gpu_gaps(evs):
    """{device: [gap_ns, ...]} between the busy periods (union of kernels,
    memcpys and memsets) of each device, longest first."""
    per = {}
    for e in evs:
        if kind_of(e) in ("kernel", "memcpy", "memset") and isinstance(e.get("ts"), (int, float)):
            per.setdefault(e["pid"], []).append(span(e))
    out = {}
    for dev, iv in per.items():
        u = merge(iv)
        out[dev] = sorted((b[0] - a[1] for a, b in zip(u, u[1:])), reverse=True)
    return out
