#!/usr/bin/env python3
"""snapshot_reference.py — independent reference numbers for memory snapshots.

usage: snapshot_reference.py SNAPSHOT.pickle [...]   (prints JSON)
       snapshot_reference.py --write                 (rewrites expected/)

Decodes the pickle with its own small stack machine over
pickletools.genops (never pickle.load: no opcode can name or call code,
anything outside the plain-data subset raises), then computes what profan's
memory queries report, following docs/formats.md §2 directly:
  - totals per device: reserved (segment total_size), allocated (requested
    bytes of active_allocated blocks: requested_size, else
    history[0].real_size, else size), active / inactive (block sizes),
    fragmentation = inactive / reserved;
  - segment size buckets and pinned small blocks;
  - the trace replay: alloc adds, free_requested removes, a free_completed
    of a block with no free_requested removes too; anchored so that the
    state after the last entry equals the snapshot's allocated bytes; the
    peak (first maximum), its index, and the bytes live at the peak;
  - allocation churn: sizes >= 1 MiB by count x size.
"""
import json
import os
import pickletools
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared",
                                         "fixtures", "snapshots"))
SNAPSHOTS = ["cs336-fullstep-2025.pickle", "tomi-small.pickle",
             "llm-inference-torch20-history.pickle", "segment-list-only.pkl",
             "empty-snapshot.pickle"]

_MARK = object()


class _Frozen(tuple):
    pass


def decode(data):
    """Plain-data pickle -> Python value, without pickle.load."""
    stack, memo = [], {}

    def pop_mark():
        i = len(stack) - 1
        while stack[i] is not _MARK:
            i -= 1
        items = stack[i + 1:]
        del stack[i:]
        return items

    for op, arg, _pos in pickletools.genops(data):
        n = op.name
        if n in ("PROTO", "FRAME"):
            continue
        if n == "STOP":
            break
        if n == "MARK":
            stack.append(_MARK)
        elif n == "EMPTY_DICT":
            stack.append({})
        elif n == "EMPTY_LIST":
            stack.append([])
        elif n == "EMPTY_TUPLE":
            stack.append(())
        elif n in ("NONE",):
            stack.append(None)
        elif n == "NEWTRUE":
            stack.append(True)
        elif n == "NEWFALSE":
            stack.append(False)
        elif n in ("BININT", "BININT1", "BININT2", "LONG1", "LONG4",
                   "BINFLOAT", "SHORT_BINUNICODE", "BINUNICODE",
                   "BINUNICODE8"):
            stack.append(arg)
        elif n in ("MEMOIZE",):
            memo[len(memo)] = stack[-1]
        elif n in ("BINPUT", "LONG_BINPUT"):
            memo[arg] = stack[-1]
        elif n in ("BINGET", "LONG_BINGET"):
            stack.append(memo[arg])
        elif n == "APPEND":
            v = stack.pop()
            stack[-1].append(v)
        elif n == "APPENDS":
            items = pop_mark()
            stack[-1].extend(items)
        elif n == "SETITEM":
            v = stack.pop()
            k = stack.pop()
            stack[-1][k] = v
        elif n == "SETITEMS":
            items = pop_mark()
            d = stack[-1]
            for i in range(0, len(items), 2):
                d[items[i]] = items[i + 1]
        elif n == "TUPLE1":
            stack[-1:] = [(stack[-1],)]
        elif n == "TUPLE2":
            stack[-2:] = [tuple(stack[-2:])]
        elif n == "TUPLE3":
            stack[-3:] = [tuple(stack[-3:])]
        elif n == "TUPLE":
            stack.append(tuple(pop_mark()))
        elif n == "LIST":
            stack.append(list(pop_mark()))
        elif n == "DICT":
            items = pop_mark()
            stack.append({items[i]: items[i + 1]
                          for i in range(0, len(items), 2)})
        else:
            raise ValueError("opcode %s refused" % n)
    assert len(stack) == 1
    return stack[0]


def block_requested(b):
    if "requested_size" in b:
        return b["requested_size"]
    h = b.get("history") or []
    if h and "real_size" in h[0]:
        return h[0]["real_size"]
    return b["size"]


BUCKETS = [("<2 MB", 0, 2 << 20), ("2-64 MB", 2 << 20, 64 << 20),
           ("64-256 MB", 64 << 20, 256 << 20),
           ("256 MB-1 GB", 256 << 20, 1 << 30), (">=1 GB", 1 << 30, 1 << 62)]


def device_numbers(segs, trace, has_trace):
    out = {}
    reserved = sum(s["total_size"] for s in segs)
    allocated = active = inactive = 0
    pinned_n = pinned_bytes = 0
    unused_n = unused = frag = 0
    blocks_all = []
    for s in segs:
        addr = s["address"]
        bl = s["blocks"]
        # reserved but unused: a cached segment without a live block;
        # fragmentation: the free blocks of segments that hold live ones
        if bl and all(b["state"] not in ("active_allocated",
                                         "active_pending_free") for b in bl):
            unused_n += 1
            unused += s["total_size"]
        else:
            frag += sum(b["size"] for b in bl
                        if b["state"] not in ("active_allocated",
                                              "active_pending_free"))
        for j, b in enumerate(bl):
            baddr = b.get("address", addr)
            addr = baddr + b["size"]
            blocks_all.append((baddr, b))
            st = b["state"]
            if st == "active_allocated":
                allocated += block_requested(b)
                active += b["size"]
            elif st == "active_pending_free":
                active += b["size"]
            else:
                inactive += b["size"]
            if (st != "inactive" and b["size"] < (2 << 20) and 0 < j < len(bl) - 1
                    and bl[j - 1]["state"] == "inactive"
                    and bl[j + 1]["state"] == "inactive"):
                pinned_n += 1
                pinned_bytes += b["size"]
    out.update(segments=len(segs), blocks=len(blocks_all),
               reserved_bytes=reserved, allocated_bytes=allocated,
               active_bytes=active, inactive_bytes=inactive,
               unused_segments=unused_n, unused_bytes=unused,
               fragmented_bytes=frag,
               fragmentation_pct=round(100.0 * frag / max(reserved, 1), 2),
               reserved_unused_pct=round(100.0 * unused / max(reserved, 1),
                                         2),
               pinned_blocks=pinned_n, pinned_bytes=pinned_bytes)
    out["buckets"] = {}
    for name, lo, hi in BUCKETS:
        ss = [s for s in segs if lo <= s["total_size"] < hi]
        out["buckets"][name] = [len(ss), sum(s["total_size"] for s in ss)]
    out["largest_gap_bytes"] = max(
        [b["size"] for _, b in blocks_all if b["state"] == "inactive"] or [0])
    # advice_threshold fragmentation.inactive_pct 10, min_segments 10
    # (segments holding live blocks); reserved-unused.unused_pct 10
    out["expandable_recommended"] = bool(frag * 10 > reserved
                                         and len(segs) - unused_n > 10)
    out["empty_cache_recommended"] = bool(unused * 10 > reserved)

    # replay, relative first
    rel, live, events = 0, {}, []
    first_free = {}
    for i, e in enumerate(trace):
        a, size = e["action"], e.get("size", 0)
        if a == "alloc":
            rel += size
            live[e["addr"]] = [i, size, "live"]
        elif a == "free_requested":
            rel -= size
            if e["addr"] in live:
                live[e["addr"]][2] = "requested"
                first_free[live[e["addr"]][0]] = i
            else:
                first_free[("orphan", i)] = size
        elif a == "free_completed":
            ent = live.pop(e["addr"], None)
            if ent is not None and ent[2] == "live":
                rel -= size
                first_free[ent[0]] = i
        events.append(rel)
    base = allocated - rel
    trace_live = sum(v[1] for v in live.values() if v[2] == "live")
    if events:
        vals = [base + r for r in events]
        peak = max(vals)
        peak_idx = vals.index(peak)
    else:
        peak, peak_idx = allocated, None
    # reserved after each entry, anchored so that the last one is the
    # segments' total; the largest (the total when there is no trace)
    rrel, rvals = 0, []
    for e in trace:
        a = e["action"]
        if a in ("segment_alloc", "segment_map"):
            rrel += e.get("size", 0)
        elif a in ("segment_free", "segment_unmap"):
            rrel -= e.get("size", 0)
        rvals.append(rrel)
    out["max_reserved_bytes"] = (max(reserved - rrel + v for v in rvals)
                                 if rvals else reserved)
    out.update(n_events=len(trace) if has_trace else 0, peak_allocated_bytes=peak,
               peak_event_idx=peak_idx, trace_live_bytes=trace_live,
               baseline_bytes=allocated - trace_live if has_trace else allocated)
    # live at the peak, counted item by item
    live_sum = live_n = 0
    if peak_idx is not None:
        for i, e in enumerate(trace):
            if e["action"] == "alloc" and i <= peak_idx:
                f = first_free.get(i)
                if f is None or f > peak_idx:
                    live_sum += e["size"]
                    live_n += 1
        for k, v in first_free.items():
            if isinstance(k, tuple) and k[1] > peak_idx:
                live_sum += v
                live_n += 1
    in_trace = {v[0] for v in live.values()}
    alloc_addr = {}
    for i, e in enumerate(trace):
        if e["action"] == "alloc":
            alloc_addr[i] = e["addr"]
    live_addrs = {alloc_addr[i] for i in in_trace}
    for baddr, b in blocks_all:
        if b["state"] == "active_allocated" and baddr not in live_addrs:
            live_sum += block_requested(b)
            live_n += 1
    out.update(peak_live_bytes=live_sum, peak_live_count=live_n)
    # churn
    sizes = {}
    for e in trace:
        if e["action"] == "alloc" and e["size"] >= (1 << 20):
            sizes[e["size"]] = sizes.get(e["size"], 0) + 1
    churn = sorted(sizes.items(), key=lambda kv: (-kv[0] * kv[1], -kv[0]))
    out["churn_top"] = [[s, n, s * n] for s, n in churn[:10]]
    out["actions"] = {}
    for e in trace:
        out["actions"][e["action"]] = out["actions"].get(e["action"], 0) + 1
    return out


def reference(path):
    with open(path, "rb") as f:
        root = decode(f.read())
    if isinstance(root, dict):
        segs = root.get("segments", [])
        traces = root.get("device_traces")
    else:
        segs, traces = root, None
    devs = sorted({s["device"] for s in segs}
                  | set(range(len(traces or []))))
    used = [d for d in devs
            if any(s["device"] == d for s in segs) or (traces and traces[d])]
    if not used:
        used = [0]
    result = {}
    for d in used:
        tr = traces[d] if traces is not None and d < len(traces) else []
        result[str(d)] = device_numbers([s for s in segs if s["device"] == d],
                                        tr, traces is not None)
    return result


def main(argv):
    if argv[1:] == ["--write"]:
        for name in SNAPSHOTS:
            out = os.path.join(HERE, "expected", "snapshot-" + name + ".json")
            with open(out, "w") as f:
                json.dump(reference(os.path.join(FIXTURES, name)), f,
                          indent=1, sort_keys=True)
                f.write("\n")
            print("wrote", out)
        return 0
    for p in argv[1:]:
        print(json.dumps(reference(p), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
