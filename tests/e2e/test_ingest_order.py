"""test_ingest_order.py — CPU ops written in END order (the 2021 profiler:
an op after the ops it encloses) are nested in-stream, exactly as the same
ops written in start order, with no pass over the rows in the database.

The oracle is computed here from the input: per thread, ops sorted by
(start, longest first, file order); an op's parent is the innermost op
still open that does not end before it ends; self time is its duration
minus its direct children's.
"""
import json
import os
import sqlite3

import common


def ops_of(evs):
    return [e for e in evs if e.get("ph") == "X"
            and e.get("cat") in ("cpu_op", "Operator")]


def oracle(evs):
    """Sorted [(tid, ts_ns, dur_ns, name, depth, self_ns, parent name)]."""
    out = []
    by_tid = {}
    for i, e in enumerate(ops_of(evs)):
        by_tid.setdefault(str(e["tid"]), []).append((i, e))
    for tid, ops in by_tid.items():
        ops.sort(key=lambda p: (p[1]["ts"], -p[1].get("dur", 0), p[0]))
        stack = []                                  # [end, event, child dur]
        done = []
        for _, e in ops:
            ts, end = e["ts"], e["ts"] + e.get("dur", 0)
            while stack and (stack[-1][0] <= ts or stack[-1][0] < end):
                done.append(stack.pop())
            parent = stack[-1][1]["name"] if stack else ""
            if stack:
                stack[-1][2] += e.get("dur", 0)
            rec = [end, e, 0, len(stack), parent]
            stack.append(rec)
        done.extend(stack)
        for end, e, child, depth, parent in done:
            out.append((tid, int(round(e["ts"] * 1000)),
                        int(round(e.get("dur", 0) * 1000)), e["name"], depth,
                        max(0, int(round((e.get("dur", 0) - child) * 1000))),
                        parent))
    return sorted(out)


def end_ordered(evs):
    """The same events with each thread's CPU ops moved to the end of the
    list in end order (the enclosing op after what it encloses)."""
    ops = ops_of(evs)
    rest = [e for e in evs if e not in ops]
    idx = {id(e): i for i, e in enumerate(ops)}
    ops = sorted(ops, key=lambda e: (str(e["tid"]), e["ts"] + e.get("dur", 0),
                                      -e["ts"], idx[id(e)]))
    return ops + rest


class EndOrderedOps(common.ProfanTest):

    # the linker's records (op intervals, deferred ops and calls) in
    # memory (default), in temporary files from the first byte, and moved
    # to a file part-way (src/core/spool.c)
    SPOOLS = ({}, {"PROFAN_SPOOL_KB": "0"}, {"PROFAN_SPOOL_KB": "64"})

    def ingest_rows(self, evs, name, env=None):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            json.dump({"traceEvents": evs, "distributedInfo": {"rank": 0}}, f)
        db = os.path.join(self.tmp.name, name + ".db")
        if os.path.exists(db):
            os.remove(db)
        r = common.run("ingest", "--quiet", path, db=db,
                       env=dict(env or {}, PROFAN_TIMING="1"))
        self.assertEqual(r.rc, 0, r.err)
        con = sqlite3.connect(db)
        rows = con.execute(
            "SELECT o.tid, o.ts, o.dur, s.text, o.depth, o.self_dur,"
            " coalesce(ps.text, '') FROM cpu_op o JOIN string s"
            " ON s.id = o.name_id LEFT JOIN cpu_op p ON p.id = o.parent_id"
            " LEFT JOIN string ps ON ps.id = p.name_id").fetchall()
        calls = con.execute(
            "SELECT count(*), count(op_id) FROM runtime_call").fetchone()
        con.close()
        got = sorted((str(t), ts, dur, n, d, sd, pn)
                     for t, ts, dur, n, d, sd, pn in rows)
        return got, calls, r.err

    def check(self, evs, calls_first=False):
        want = oracle(evs)
        got_s, calls_s, err_s = self.ingest_rows(evs, "start.json")
        moved = end_ordered(evs)
        if calls_first:
            # runtime calls before every op of the file: they wait in the
            # linker's call-defer file until the ops are placed
            rt = [e for e in moved if e.get("cat") == "cuda_runtime"]
            moved = rt + [e for e in moved if e.get("cat") != "cuda_runtime"]
        self.assertGreater(len(want), 0)
        self.assertEqual(got_s, want)
        for env in self.SPOOLS:
            got_e, calls_e, err_e = self.ingest_rows(moved, "end.json", env)
            self.assertEqual(got_e, want, env)
            self.assertEqual(calls_e, calls_s, env)
        # runtime calls find their op the same way
        if any(e.get("cat") == "cuda_runtime" for e in evs):
            self.assertGreater(calls_s[1], 0)
        if calls_first:
            self.assertIn("replayed after the ops", err_e)
        # in-stream: no database sweep of the ops
        self.assertIn("linker cpu=0", err_e)
        self.assertNotIn("derive cpu sweep", err_e)

    def test_hand_made_nesting(self):
        def X(name, ts, dur, tid=1):
            return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1,
                    "tid": tid, "ts": ts, "dur": dur, "args": {}}
        evs = [X("ProfilerStep#1", 0, 100), X("a", 1, 30), X("a.1", 2, 10),
               X("a.2", 15, 10), X("b", 40, 50), X("b.1", 40, 20),
               X("b.1.1", 40, 20), X("c", 95, 5),
               X("other", 3, 50, tid=2), X("other.1", 10, 5, tid=2)]
        self.check(evs)

    def test_real_trace_reordered(self):
        # 2,424 ops of a real trace with runtime calls and kernels
        evs = common.events(common.shared("traces", "hta-no-rank.json.gz"))
        self.check(evs)

    def test_real_trace_with_calls(self):
        # 359 ops and 361 runtime calls that find their op in-stream
        evs = common.events(common.shared("traces", "hta-alexnet-a100.json.gz"))
        self.check(evs)

    def test_runtime_calls_before_their_ops(self):
        evs = common.events(common.shared("traces", "hta-alexnet-a100.json.gz"))
        self.check(evs, calls_first=True)


if __name__ == "__main__":
    import unittest
    unittest.main()
