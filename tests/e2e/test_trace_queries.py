"""test_trace_queries.py — values of the trace named queries.

The focus of this file is the numbers printed by operators, launch-overhead,
memcpy, tflops, fill-by-size, checkpoint-recompute and memory-timeline's
profiler rows, checked against
independent Python computations over the fixture JSON (its own nesting
sweep, its own FLOP formula) and against a small hand-written trace whose
answers are known exactly.
"""
import gzip
import json
import os
import random
import re
import sqlite3
import subprocess
import sys

import common
import trace_reference as ref
from common import ProfanTest, shared


def nesting_self_times(evs):
    """{op name: (calls, total_ns, self_ns)} with an independent stack sweep
    (per thread, ordered by start then longest first)."""
    ops = [e for e in evs if ref.kind_of(e) == "cpu_op"]
    by_tid = {}
    for e in ops:
        by_tid.setdefault(e["tid"], []).append(e)
    res = {}
    for tid, lst in by_tid.items():
        lst.sort(key=lambda e: (ref.us_to_ns(e["ts"]), -ref.us_to_ns(e.get("dur", 0))))
        stack = []   # [end, name, dur, child]

        def close(fr):
            c, t, s = res.get(fr[1], (0, 0, 0))
            res[fr[1]] = (c + 1, t + fr[2], s + max(0, fr[2] - fr[3]))
        for e in lst:
            s = ref.us_to_ns(e["ts"])
            d = max(0, ref.us_to_ns(e.get("dur", 0)))
            while stack and (stack[-1][0] <= s or stack[-1][0] < s + d):
                close(stack.pop())
            if stack:
                stack[-1][3] += d
            stack.append([s + d, e["name"], d, 0])
        while stack:
            close(stack.pop())
    return res


class OperatorQueries(ProfanTest):

    def test_operators_calls_total_self(self):
        path = shared("traces", "hta-alexnet-a100.json.gz")
        want = nesting_self_times(common.events(path))
        self.ingest_ok(path)
        rows = self.query("operators", "--limit", "1000")
        self.assertEqual(len(rows), len(want))
        for r in rows:
            c, t, s = want[r["name"]]
            self.assertEqual(int(r["calls"]), c, r["name"])
            self.assertAlmostEqual(float(r["total_ms"]), t / 1e6, delta=0.0006)
            self.assertAlmostEqual(float(r["self_ms"]), s / 1e6, delta=0.0006, msg=r["name"])

    def test_launch_overhead_counts(self):
        path = shared("traces", "param-linear-2080ti.json.gz")
        evs = common.events(path)
        want = {}
        for e in evs:
            if ref.kind_of(e) == "runtime":
                c, t = want.get(e["name"], (0, 0))
                want[e["name"]] = (c + 1, t + max(0, ref.us_to_ns(e.get("dur", 0))))
        self.ingest_ok(path)
        rows = self.query("launch-overhead", "--limit", "100")
        self.assertEqual({r["name"] for r in rows}, set(want))
        for r in rows:
            self.assertEqual(int(r["calls"]), want[r["name"]][0])
            self.assertAlmostEqual(float(r["total_ms"]), want[r["name"]][1] / 1e6, delta=0.0006)
        launch = [r for r in rows if r["name"] == "cudaLaunchKernel"][0]
        kernels = sum(1 for e in evs if ref.kind_of(e) == "kernel")
        self.assertGreater(int(launch["launches"]), kernels * 0.9)

    def test_memcpy_by_direction(self):
        path = shared("traces", "hta-diff-test-v100-rank1.json.gz")
        want = {}
        for e in common.events(path):
            k = ref.kind_of(e)
            if k in ("memcpy", "memset"):
                m = re.match(r"Memcpy (\w+) \((\w+) -> (\w+)\)", e["name"])
                key = (k, m.group(1) if m else "")
                c, b, t = want.get(key, (0, 0, 0))
                want[key] = (c + 1, b + e["args"].get("bytes", 0),
                             t + max(0, ref.us_to_ns(e.get("dur", 0))))
        self.ingest_ok(path)
        got = {}
        for r in self.query("memcpy"):
            key = (r["kind"], r["direction"])
            c, b, t = got.get(key, (0, 0, 0))
            got[key] = (c + int(r["count"]), b + int(r["bytes"] or 0),
                        t + round(float(r["total_ms"]) * 1e6))
        self.assertEqual(set(got), set(want))
        for key in want:
            self.assertEqual(got[key][0], want[key][0], key)
            self.assertEqual(got[key][1], want[key][1], key)
            self.assertAlmostEqual(got[key][2], want[key][2], delta=2000)

    def test_tflops_from_shapes(self):
        path = shared("traces", "hta-diff-control-a100-rank3.json.gz")
        flops = {}
        for e in common.events(path):
            if ref.kind_of(e) != "cpu_op":
                continue
            dims = (e.get("args") or {}).get("Input Dims")
            n = e["name"]
            f = None
            try:
                if n == "aten::mm":
                    (m, k), (k2, nn) = dims[0], dims[1]
                    f = 2 * m * k * nn if k == k2 else None
                elif n == "aten::addmm":
                    (m, k), (k2, nn) = dims[1], dims[2]
                    f = 2 * m * k * nn if k == k2 else None
                elif n == "aten::bmm":
                    (b, m, k), (b2, k2, nn) = dims[0], dims[1]
                    f = 2 * b * m * k * nn if k == k2 and b == b2 else None
            except (TypeError, ValueError, IndexError):
                f = None
            if f is not None:
                flops[n] = flops.get(n, 0) + f
        self.assertTrue(flops, "fixture has matrix multiplies")
        self.ingest_ok(path)
        rows = {r["name"]: r for r in self.query("tflops")}
        for n, f in flops.items():
            self.assertAlmostEqual(float(rows[n]["tflop"]), f / 1e12, delta=1e-6)
            self.assertEqual(rows[n]["flops_source"], "estimate")


def tiny_trace():
    """A hand-written trace with known answers: a checkpoint region that
    launches two kernels, a fill kernel on a [1024, 1024] tensor."""
    def X(cat, name, ts, dur, **args):
        return {"ph": "X", "cat": cat, "name": name, "pid": 1 if cat in (
            "cpu_op", "cuda_runtime", "user_annotation") else 0,
            "tid": 1 if cat in ("cpu_op", "cuda_runtime", "user_annotation") else 7,
            "ts": ts, "dur": dur, "args": args}
    ev = [
        X("user_annotation", "ProfilerStep#1", 1000, 1000),
        X("cpu_op", "aten::zero_", 1010, 20, **{"Input Dims": [[1024, 1024]]}),
        X("cuda_runtime", "cudaLaunchKernel", 1015, 3, correlation=1),
        X("kernel", "void at::native::FillFunctor<float>", 1030, 40, correlation=1),
        X("cpu_op", "CheckpointFunctionBackward", 1100, 300),
        X("cpu_op", "aten::mm", 1110, 50, **{"Input Dims": [[64, 128], [128, 32]]}),
        X("cuda_runtime", "cudaLaunchKernel", 1120, 3, correlation=2),
        X("kernel", "gemm_kernel", 1130, 100, correlation=2),
        X("cpu_op", "aten::relu", 1200, 20),
        X("cuda_runtime", "cudaLaunchKernel", 1205, 3, correlation=3),
        X("kernel", "relu_kernel", 1240, 10, correlation=3),
        X("cpu_op", "aten::add", 1500, 20),
        X("cuda_runtime", "cudaLaunchKernel", 1505, 3, correlation=4),
        X("kernel", "add_kernel", 1510, 10, correlation=4),
    ]
    return {"traceEvents": ev, "distributedInfo": {"rank": 0}}


class HandWritten(ProfanTest):

    def setUp(self):
        super().setUp()
        p = os.path.join(self.tmp.name, "tiny.json")
        with open(p, "w") as f:
            json.dump(tiny_trace(), f)
        self.ingest_ok(p)

    def test_checkpoint_recompute(self):
        r = self.query("checkpoint-recompute")[0]
        self.assertEqual(r["recompute_ops"], "1")
        self.assertEqual(float(r["cpu_ms"]), 0.3)
        self.assertEqual(r["kernels"], "2")
        self.assertEqual(float(r["gpu_ms"]), 0.11)
        self.assertAlmostEqual(float(r["pct_of_gpu"]), 100 * 110 / 160, places=2)

    def test_fill_by_size(self):
        r = self.query("fill-by-size")[0]
        self.assertEqual((r["op"], r["shape"], r["kernels"]), ("aten::zero_", "[1024,1024]", "1"))
        self.assertEqual(float(r["total_ms"]), 0.04)
        self.assertEqual(float(r["pct_of_gpu"]), 25.0)

    def test_tflops_exact(self):
        r = self.query("tflops")[0]
        self.assertEqual(r["name"], "aten::mm")
        self.assertEqual(float(r["tflop"]), round(2 * 64 * 128 * 32 / 1e12, 6))
        # 524288 FLOPs in a 100 µs kernel
        self.assertAlmostEqual(float(r["tflops"]), 2 * 64 * 128 * 32 / 100e-6 / 1e12, places=3)

    def test_step_breakdown_exact(self):
        r = self.query("step-breakdown")[0]
        self.assertEqual(r["step"], "1")
        self.assertEqual(float(r["wall_ms"]), 1.0)
        # kernels: [1030,1070) [1130,1230) [1240,1250) [1510,1520) = 160 us
        self.assertEqual(float(r["kernel_ms"]), 0.16)
        # runtime calls with no kernel running: 1015-1018, 1120-1123, 1505-1508
        # (1205-1208 runs under gemm_kernel [1130, 1230))
        self.assertEqual(float(r["runtime_ms"]), 0.009)
        # top-level CPU ops with nothing above them: zero_ [1010,1030) less
        # its runtime call = 17; CheckpointFunctionBackward [1100,1400) less
        # runtime 1120-1123, gemm [1130,1230), relu [1240,1250) = 187;
        # add [1500,1520) less runtime 1505-1508 and kernel [1510,1520) = 7
        self.assertEqual(float(r["cpu_ms"]), 0.211)
        # busy: [1010,1070) 60 + [1100,1400) 300 + [1500,1520) 20 = 380 us of
        # the step's 1000; the rest of [1000, 2000) is idle
        self.assertEqual(float(r["idle_ms"]), 0.62)
        self.assertEqual((float(r["memcpy_ms"]), float(r["memset_ms"]),
                          float(r["comm_ms"])), (0.0, 0.0, 0.0))

    def test_operators_gpu_time(self):
        rows = {r["name"]: r for r in self.query("operators")}
        self.assertEqual(float(rows["aten::mm"]["gpu_ms"]), 0.1)
        self.assertEqual(rows["aten::mm"]["kernels"], "1")
        self.assertEqual(float(rows["CheckpointFunctionBackward"]["self_ms"]), 0.23)
        self.assertEqual(rows["aten::zero_"]["top_shapes"], "[[1024,1024]] x1")


def memory_event(e, ts, total, reserved=4 << 30, device_type=1):
    """A profiler [memory] instant on e's thread."""
    return {"ph": "i", "cat": "cpu_instant_event", "s": "t",
            "name": "[memory]", "pid": e["pid"], "tid": e["tid"], "ts": ts,
            "args": {"Total Reserved": reserved, "Total Allocated": total,
                     "Bytes": 512, "Addr": 0x7f0000000000,
                     "Device Id": 0, "Device Type": device_type}}


def step_end_memory(evs):
    """[(step, allocated, reserved, time_ms)] computed from the JSON: for
    each ProfilerStep#N annotation, the last CUDA [memory] event (by time,
    then file order) at or before the step's end; time_ms from the first
    such event.  Steps with none before their end have no row."""
    mem = [(ref.us_to_ns(e["ts"]), i, e["args"]) for i, e in enumerate(evs)
           if e.get("name") == "[memory]" and e["args"].get("Device Type") == 1
           and "Total Allocated" in e["args"]]
    mem.sort(key=lambda m: (m[0], m[1]))
    t0 = mem[0][0]
    out = []
    for e in evs:
        if e.get("cat") != "user_annotation" or e.get("ph") != "X" \
                or not e["name"].startswith("ProfilerStep#"):
            continue
        end = ref.us_to_ns(e["ts"]) + ref.us_to_ns(e["dur"])
        last = None
        for m in mem:
            if m[0] > end:
                break
            last = m
        if last is not None:
            out.append((int(e["name"].split("#")[1]),
                        last[2]["Total Allocated"], last[2]["Total Reserved"],
                        round((last[0] - t0) / 1e6, 3)))
    return sorted(out)


class MemoryTimeline(ProfanTest):
    """memory-timeline's profiler 'step' rows: the memory allocated and
    reserved at the end of each step, from the profiler's [memory] events.
    Until 2026-11-28 the query looked the step end up once per event and
    step: minutes on the control trace with two events per op (the
    synthetic-memory bench shape at x10 ran for over 13 minutes without
    an answer); run()'s timeout bounds it here."""

    def rows(self, path):
        self.ingest_ok(path)
        got = [r for r in self.query("memory-timeline")
               if r["section"] == "step" and r["source"] == "profiler"]
        return sorted((int(r["step"]), int(r["allocated_bytes"]),
                       int(r["reserved_bytes"]), float(r["time_ms"]))
                      for r in got)

    def test_control_trace_two_events_per_op(self):
        with gzip.open(shared("traces", "hta-diff-control-a100-rank3.json.gz"),
                       "rt") as f:
            doc = json.load(f)
        evs = doc["traceEvents"]
        total, mem = 1 << 30, []
        for n, e in enumerate(evs):
            if e.get("cat") == "cpu_op" and e.get("ph") == "X":
                size = 512 * (1 + n % 64)
                for ts, b in ((e["ts"] + 1, size),
                              (e["ts"] + max(e.get("dur", 2), 2) - 1, -size)):
                    total += b
                    mem.append(memory_event(e, ts, total, 4 << 30 | n % 7))
        evs.extend(mem)
        path = os.path.join(self.tmp.name, "memory.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        want = step_end_memory(evs)
        self.assertGreaterEqual(len(want), 3)
        self.assertGreater(len(mem), 80000)
        self.assertEqual(self.rows(path), want)

    def test_edges(self):
        # an event exactly at a step's end counts (the step holds it);
        # of two events at one time the later in the file is the last;
        # a step that ends before every event has no row; a CPU-device
        # event (Device Type 0) is not GPU memory
        def X(name, ts, dur):
            return {"ph": "X", "cat": "user_annotation", "name": name,
                    "pid": 1, "tid": 1, "ts": ts, "dur": dur, "args": {}}
        op = {"pid": 1, "tid": 1}
        evs = [X("ProfilerStep#1", 0, 5), X("ProfilerStep#2", 10, 10),
               X("ProfilerStep#3", 20, 10), X("ProfilerStep#4", 30, 10),
               memory_event(op, 8, 100), memory_event(op, 20, 200),
               memory_event(op, 20, 300), memory_event(op, 21, 400),
               memory_event(op, 35, 999, device_type=0),
               memory_event(op, 40, 500, reserved=7 << 30)]
        path = os.path.join(self.tmp.name, "edges.json")
        with open(path, "w") as f:
            json.dump({"traceEvents": evs, "distributedInfo": {"rank": 0}}, f)
        want = step_end_memory(evs)
        self.assertEqual(want, [(2, 300, 4 << 30, 0.012),
                                (3, 400, 4 << 30, 0.013),
                                (4, 500, 7 << 30, 0.032)])
        self.assertEqual(self.rows(path), want)


class StoredMemorySeries(ProfanTest):
    """Issue 35: memory-timeline's profiler rows read the series that the
    derive pass stores (schemas 095 and 114: memory_series, memory_point,
    memory_step_end) instead
    of numbering every [memory] event in a window at query time.  The old
    query is the oracle (tests/oracle/memory_timeline.sql); both run on
    the same database with the same :run and :points and return the same
    rows, on every fixture with [memory] events."""

    POINTS = (1, 2, 3, 7, 100, 1000, 10 ** 7)

    def same_rows(self, label, points_list=POINTS, profiler=True):
        con = sqlite3.connect(self.db)
        run = con.execute("SELECT max(id) FROM run").fetchone()[0]
        with open(os.path.join(common.ROOT, "tests", "oracle",
                               "memory_timeline.sql")) as f:
            oracle = f.read()
        with open(os.path.join(common.ROOT, "queries",
                               "memory-timeline.sql")) as f:
            stored = f.read()
        n = 0
        for points in points_list:
            args = {"run": run, "points": points}
            want = con.execute(oracle, args).fetchall()
            got = con.execute(stored, args).fetchall()
            self.assertEqual(got, want, (label, points))
            if points == points_list[-1]:
                want7 = want
            n += sum(1 for r in want if r[1] == "profiler")
        con.close()
        self.assertEqual(n > 0, profiler, label)
        # profan's own answer: the rows of the file read above
        prof = [r for r in self.query("memory-timeline", "--param",
                                      "points=%d" % points_list[-1])
                if r["source"] == "profiler"]
        self.assertEqual(len(prof), sum(1 for r in want7
                                        if r[1] == "profiler"), label)

    def test_real_trace(self):
        # the one shared trace with [memory] events: a 2021 one, without
        # totals (no profiler rows either way)
        self.ingest_ok(shared("traces",
                              "kineto-resnet50-2021-workers4.pt.trace.json.gz"))
        self.same_rows("workers4", profiler=False)

    def test_synthetic_memory_shape(self):
        # the bench shape (bench/make_shapes.py memory: an alloc and a free
        # event around every CPU op of the control trace, 81,012 events)
        p = os.path.join(self.tmp.name, "shape-memory.json")
        subprocess.run([sys.executable,
                        os.path.join(common.ROOT, "bench", "make_shapes.py"),
                        shared("traces", "hta-diff-control-a100-rank3.json.gz"),
                        "memory", p], check=True, timeout=300)
        self.ingest_ok(p)
        self.same_rows("synthetic-memory", (97, 100))

    def edge_files(self):
        """Two rank files with [memory] events: at a step's end, two at
        one time, one before every step end, CPU ones (one the last
        event before a step's end), 50 and 100 more after the steps."""
        def X(name, ts, dur):
            return {"ph": "X", "cat": "user_annotation", "name": name,
                    "pid": 1, "tid": 1, "ts": ts, "dur": dur, "args": {}}
        op = {"pid": 1, "tid": 1}
        paths = []
        for rank in (0, 3):
            evs = [X("ProfilerStep#1", 0, 5), X("ProfilerStep#2", 10, 10),
                   X("ProfilerStep#3", 20, 10), X("ProfilerStep#4", 30, 10),
                   memory_event(op, 8, 100), memory_event(op, 20, 200),
                   memory_event(op, 20, 300), memory_event(op, 21, 400),
                   memory_event(op, 25, 777, device_type=0),
                   memory_event(op, 35, 999, device_type=0),
                   memory_event(op, 40, 500 + rank, reserved=7 << 30)]
            evs += [memory_event(op, 41 + k, (k * 7919 + rank) % 1000)
                    for k in range(50 * (rank + 1))]
            p = os.path.join(self.tmp.name, "edges%d.json" % rank)
            with open(p, "w") as f:
                json.dump({"traceEvents": evs,
                           "distributedInfo": {"rank": rank}}, f)
            paths.append(p)
        return paths

    def test_edges_and_two_ranks(self):
        paths = self.edge_files()
        self.ingest_ok(*paths)
        self.assertEqual([int(r["rank"]) for r in self.sql(
            "SELECT rank FROM memory_series ORDER BY 1")], [0, 3])
        self.same_rows("edges")
        q = ("SELECT p.rank, p.i, e.ts, p.total_allocated, e.total_reserved"
             " FROM memory_series_point p JOIN memory_event e"
             " ON e.id = p.event_id"
             " ORDER BY 1, 2")
        qe = ("SELECT p.rank, p.step, e.ts, e.total_allocated"
              " FROM memory_step_end p JOIN memory_event e"
              " ON e.id = p.event_id ORDER BY 1, 2")
        whole = (self.sql(q), self.sql(qe))
        # one shard per rank, merged: the merge's derive pass stores them
        shards = []
        for k, p in enumerate(paths):
            d = os.path.join(self.tmp.name, "shard%d.db" % k)
            r = common.run("ingest", p, db=d)
            self.assertEqual(r.rc, 0, r.err)
            shards.append(d)
        self.db = os.path.join(self.tmp.name, "merged.db")
        r = common.run("merge", "--into", self.db, *shards, db=self.db)
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual((self.sql(q), self.sql(qe)), whole)
        self.same_rows("edges merged")

    def test_events_out_of_order(self):
        # Kineto does not sort a trace's events (formats.md §1.3): each
        # rank's [memory] events shuffled in its file (ties at one time
        # too), and rank 0 once more in a second file whose times
        # interleave with the first's; numbered all the same in (ts, file
        # order), the points computed here from the JSON
        rnd = random.Random(29)
        paths = self.edge_files()
        docs = []
        for p in paths:
            with open(p) as f:
                d = json.load(f)
            mem = [e for e in d["traceEvents"] if e["name"] == "[memory]"]
            rnd.shuffle(mem)
            d["traceEvents"] = [e for e in d["traceEvents"]
                                if e["name"] != "[memory]"] + mem
            docs.append(d)
        extra = {"traceEvents": [
            memory_event({"pid": 1, "tid": 1}, 60.5 - k, 5000 + k)
            for k in range(30)], "distributedInfo": {"rank": 0}}
        docs.append(extra)
        paths = []
        for k, d in enumerate(docs):
            paths.append(os.path.join(self.tmp.name, "shuffled%d.json" % k))
            with open(paths[-1], "w") as f:
                json.dump(d, f)
        self.ingest_ok(*paths)
        self.same_rows("shuffled")
        for rank, files in ((0, (docs[0], extra)), (3, (docs[1],))):
            mem = []
            for d in files:
                mem += [e for e in d["traceEvents"]
                        if e["name"] == "[memory]"
                        and e["args"]["Device Type"] == 1]
            # file order is insertion order: a stable sort by time
            want = [e["args"]["Total Allocated"]
                    for e in sorted(mem, key=lambda e: e["ts"])]
            got = [int(r["allocated_bytes"])
                   for r in self.query("memory-timeline", "--param",
                                       "points=100000")
                   if r["source"] == "profiler" and r["section"] == "point"
                   and int(r["device"]) == rank]
            self.assertEqual(got, want, rank)

    def test_rebuild_stores_it(self):
        self.ingest_ok(*self.edge_files())
        before = self.sql("SELECT * FROM memory_series_point"
                          " ORDER BY 1, 2, 3")
        ends = self.sql("SELECT * FROM memory_step_end ORDER BY 1, 2, 3")
        self.assertTrue(before)
        self.assertTrue(ends)
        con = sqlite3.connect(self.db)
        with con:
            con.execute("DELETE FROM memory_point")
            con.execute("DELETE FROM memory_series")
            con.execute("DELETE FROM memory_step_end")
        con.close()
        r = self.profan("rebuild")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(self.sql("SELECT * FROM memory_series_point"
                                  " ORDER BY 1, 2, 3"), before)
        self.assertEqual(self.sql("SELECT * FROM memory_step_end"
                                  " ORDER BY 1, 2, 3"), ends)

    def test_query_reads_the_stored_rows(self):
        # the named query's plan: each rank's memory_series row by its
        # key, its points by rowid (a slice's maximum one rowid range), no
        # scan of memory_point or of memory_event
        self.ingest_ok(*self.edge_files())
        with open(os.path.join(common.ROOT, "queries",
                               "memory-timeline.sql")) as f:
            text = f.read()
        con = sqlite3.connect(self.db)
        plan = [r[3] for r in con.execute("EXPLAIN QUERY PLAN " + text,
                                          {"run": 1, "points": 100})]
        con.close()
        self.assertIn("SEARCH x USING INTEGER PRIMARY KEY"
                      " (rowid>? AND rowid<?)", plan)
        self.assertIn("SEARCH s USING PRIMARY KEY (run_id=?)", plan)
        for d in plan:
            self.assertNotIn("SCAN memory_point", d)
            self.assertNotIn("SCAN m ", d + " ")
            self.assertNotIn("SCAN me", d)
        self.assertGreaterEqual(sum("USING INTEGER PRIMARY KEY (rowid=?)"
                                    in d for d in plan), 4, plan)

    def test_rm_and_a_second_run(self):
        # two runs: each one's points a range of its own; rm of the first
        # leaves the second's series whole, and a third run appends
        paths = self.edge_files()
        self.ingest_ok(paths[0])
        self.ingest_ok(paths[1])
        q = ("SELECT run_id, rank, i, total_allocated, event_id"
             " FROM memory_series_point WHERE run_id = %d ORDER BY 2, 3")
        second = self.sql(q % 2)
        self.assertEqual(len(second), 205)   # 5 + 200 events of rank 3
        self.same_rows("second run")
        r = self.profan("rm", "1")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(self.sql("SELECT count(*) AS n FROM memory_point"
                                  " WHERE run_id = 1")[0]["n"], "0")
        self.assertEqual(self.sql(q % 2), second)
        self.ingest_ok(paths[0])
        self.same_rows("third run")
        self.assertEqual(self.sql(q % 2), second)
        self.assertEqual(self.sql(
            "SELECT count(*) AS n FROM memory_point p"
            " WHERE NOT EXISTS (SELECT 1 FROM memory_series s"
            " WHERE p.id BETWEEN s.point_first"
            " AND s.point_first + s.point_n - 1)")[0]["n"], "0")


def stream_idle_ns(evs):
    """{(pid, tid): [gap_ns, ...]} of each GPU stream: the gap before an op
    (kernel, memcpy, memset; by start) that starts after every earlier op
    of its stream ended."""
    per = {}
    for e in evs:
        if kind_of_gpu(e):
            per.setdefault((e["pid"], e["tid"]), []).append(ref.span(e))
    out = {}
    for k, iv in per.items():
        iv.sort()
        end, gaps = iv[0][1], []
        for s, t in iv[1:]:
            if s > end:
                gaps.append(s - end)
            end = max(end, t)
        out[k] = gaps
    return out


def kind_of_gpu(e):
    return (ref.kind_of(e) in ("kernel", "memcpy", "memset")
            and isinstance(e.get("ts"), (int, float)))


class StoredHtaSeries(ProfanTest):
    """Issue 35: the idle intervals are stored at ingest (hta_stream) and
    their category is applied when read, so an edited kernel_wait_ns holds
    for a run already stored; the queries read the stored rows."""

    def test_idle_threshold_applies_to_stored_rows(self):
        path = shared("traces", "hta-alexnet-a100.json.gz")
        gaps = stream_idle_ns(common.events(path))
        self.ingest_ok(path)

        def by_cat():
            out = {}
            for r in self.query("idle-breakdown"):
                c = out.setdefault(int(r["stream"]), {})
                c[r["category"]] = (int(r["intervals"]),
                                    round(float(r["idle_ms"]) * 1e6))
            return out
        before = by_cat()
        want = {tid: (len(g), sum(g)) for (pid, tid), g in gaps.items() if g}
        self.assertEqual(set(before), set(want))
        for s, cats in before.items():
            self.assertEqual((sum(n for n, _ in cats.values()),
                              sum(ns for _, ns in cats.values())), want[s], s)
            self.assertIn("kernel_wait", cats, s)   # the 30 us default
        host = {s: c.get("host_wait") for s, c in before.items()}
        con = sqlite3.connect(self.db)      # a user's edit, in sqlite3
        with con:
            con.execute("UPDATE hta_setting SET value = 0"
                        " WHERE name = 'kernel_wait_ns'")
        con.close()
        after = by_cat()
        for s, cats in after.items():
            self.assertNotIn("kernel_wait", cats, s)
            self.assertEqual(cats.get("host_wait"), host[s], s)
            self.assertEqual(sum(n for n, _ in cats.values()), want[s][0], s)

    def test_queries_read_the_stored_rows(self):
        self.ingest_ok(shared("traces", "hta-alexnet-a100.json.gz"))
        plans = {
            "idle-breakdown": "SELECT * FROM hta_idle_interval"
                              " WHERE run_id = 1 AND rank = 0",
            "queue-length": "SELECT * FROM hta_queue_length"
                            " WHERE run_id = 1 AND rank = 0",
            "kernel-sequences": "SELECT * FROM kernel_sequence"
                                " WHERE run_id = 1 AND rank = 0"}
        for name, q in plans.items():
            plan = " ".join(r["detail"] for r in
                            self.sql("EXPLAIN QUERY PLAN " + q))
            self.assertRegex(plan, r"SEARCH \w+ USING PRIMARY KEY"
                             r" \(run_id=\? AND rank=\?\)", name)
            self.assertNotRegex(plan, r"\bSCAN (kernel|gpu_mem_op)\b", name)
            if name == "kernel-sequences":      # schema 112: one text a count
                self.assertRegex(plan, r"SEARCH t USING PRIMARY KEY"
                                 r" \(run_id=\? AND id=\?\)")
        self.assertTrue(self.query("kernel-sequences"))
