"""test_sweeps.py — the GPU and wall-time sweeps get the same answers from
the intervals the writer keeps in memory (src/trace/trace_spans.c, the default)
as from the rows read back from the database (PROFAN_SWEEP=db), and when
the store gives up part-way through a file (PROFAN_SPANS_KB=64 is below
what all but the smallest fixtures need).

These are consistency (differential) checks: one profan path against
another.  The answers themselves are checked against numbers computed from
the JSON in test_trace.py (busy unions) and test_trace_oracle.py (every
step-breakdown class, the idle gaps between each device's busy union,
kernel steps) and test_comm_oracle.py (comm/compute overlap); here every row of the four tables the sweeps write,
and the steps found by gap detection, must be identical across the paths,
on every trace fixture, the 8-rank run, two files of one rank, and a
hand-written trace whose times and rank are fixed up after its events went
in (baseTimeNanoseconds and distributedInfo after traceEvents).

GpuStepsByStart: the writer counts GPU rows that went in without a step,
and only then does derive give them the step holding their own start.
"""
import glob
import json
import os

import common
from common import ProfanTest, shared

TABLES = {
    "gpu_busy": "SELECT * FROM gpu_busy ORDER BY rank, device",
    # names by text: string ids depend on which rank's parser came first
    "gpu_gap": "SELECT g.run_id, g.rank, g.device, g.ts, g.dur, b.text,"
               " a.text, g.step FROM gpu_gap g"
               " LEFT JOIN string b ON b.id = g.before_name_id"
               " LEFT JOIN string a ON a.id = g.after_name_id"
               " ORDER BY g.rank, g.device, g.ts",
    "comm_overlap": "SELECT * FROM comm_overlap ORDER BY rank, device",
    "step_time": "SELECT * FROM step_time ORDER BY rank, step, class",
    "step": "SELECT * FROM step ORDER BY rank, step",
    # derive_comm.c: which kernels are collectives and the compute time
    # before each, from the kept rows or the kernel table (row ids left
    # out: they depend on which rank's parser came first)
    "collective": "SELECT run_id, rank, device, stream, ts, dur, op,"
                  " c10d_name, algo, proto, dtype, elem_bytes, in_nelems,"
                  " out_nelems, bytes, group_size, pg_name, pg_desc,"
                  " pg_ranks, bus_factor, seq, args_from FROM collective"
                  " ORDER BY rank, ts, device, stream",
    "collective_window": "SELECT c.rank, c.ts, c.device, c.stream,"
                         " w.window_ns, w.compute_ns, w.idle_ns,"
                         " w.arrival_ns, w.wait_ns, w.exposed_wait_ns,"
                         " w.queued_ns"
                         " FROM collective_window w JOIN collective c"
                         " ON c.id = w.collective_id ORDER BY 1, 2, 3, 4",
    "rank_clock": "SELECT * FROM rank_clock ORDER BY rank",
    "comm_fit": "SELECT * FROM comm_fit ORDER BY op, group_size",
}

PATHS = {
    "spans": {},
    "rows": {"PROFAN_SWEEP": "db"},
    "gave up": {"PROFAN_SPANS_KB": "64"},
}


def trailer_trace():
    """Relative float µs times with baseTimeNanoseconds and the rank after
    traceEvents: the rows go in with times and rank fixed up afterwards.
    Two ranks' worth of streams: a compute and an NCCL kernel overlapping,
    a memcpy, a gap, runtime calls outside any op."""
    def X(cat, name, ts, dur, pid, tid, **args):
        return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
                "ts": ts, "dur": dur, "args": args}
    ev = [
        X("user_annotation", "ProfilerStep#4", 10.5, 200.0, 1, 1),
        X("cpu_op", "aten::mm", 11.25, 20.0, 1, 1),
        X("cuda_runtime", "cudaLaunchKernel", 12.0, 3.5, 1, 1, correlation=1),
        X("kernel", "gemm_kernel", 40.0, 50.0, 0, 7, correlation=1),
        X("cuda_runtime", "cudaLaunchKernel", 35.0, 2.0, 1, 1, correlation=2),
        X("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 60.0, 80.0,
          0, 9, correlation=2),
        X("cuda_runtime", "cudaMemcpyAsync", 150.0, 4.0, 1, 1, correlation=3),
        X("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 170.0, 5.0, 0, 7,
          correlation=3, bytes=4096),
        X("cpu_op", "aten::add", 5.0, 3.0, 1, 2),
    ]
    return {"traceEvents": ev, "baseTimeNanoseconds": 1700000000000000000,
            "distributedInfo": {"rank": 2, "world_size": 4}}


class SweepPaths(ProfanTest):

    def ingest_three_ways(self, *paths):
        """The tables after ingesting paths by each sweep path, and which
        source each path's sweeps used ("spans" or "rows")."""
        out, used = {}, {}
        nested_in_db = False
        for name, env in PATHS.items():
            db = os.path.join(self.tmp.name, name.replace(" ", "_") + ".db")
            r = common.run("ingest", *paths, db=db,
                           env=dict(env, PROFAN_TIMING="1"))
            self.assertEqual(r.rc, 0, r.err)
            used[name] = ("spans" if "profan: derive sweeps over the spans "
                          "kept while loading\n" in r.err else
                          "rows" if "profan: derive sweeps over the rows\n"
                          in r.err else None)
            out[name] = {t: common.run("--format", "csv", "sql", q, db=db).out
                         for t, q in TABLES.items()}
            comm_kept = ("profan: derive comm over the rows kept while "
                         "loading\n" in r.err)
            if name == "rows":
                self.assertFalse(comm_kept, paths)
            used[name + " comm"] = comm_kept
            nested_in_db = nested_in_db or ": linker cpu=1 " in r.err
        # the spans hold the in-stream nesting: not used when the database
        # redoes it (ops out of order in the 2021 trace)
        self.assertEqual(used["spans"], "rows" if nested_in_db else "spans")
        self.assertEqual(used["rows"], "rows")
        return out, used

    def assertSame(self, out, label):
        for t in TABLES:
            self.assertEqual(out["spans"][t], out["rows"][t], (label, t))
            self.assertEqual(out["spans"][t], out["gave up"][t], (label, t))

    def test_every_trace_fixture(self):
        for path in sorted(glob.glob(os.path.join(shared("traces"), "*.json*"))):
            with self.subTest(path=os.path.basename(path)):
                out, used = self.ingest_three_ways(path)
                self.assertSame(out, path)
                if os.path.getsize(path) > 1000000:
                    self.assertEqual(used["gave up"], "rows", path)
                if "cpu-only" not in path:
                    self.assertGreater(out["spans"]["step_time"].count("\n"), 1,
                                       path)

    def test_eight_rank_run(self):
        out, used = self.ingest_three_ways(shared("runs", "dlrm-8rank"))
        self.assertEqual(used["gave up"], "rows")
        self.assertSame(out, "dlrm-8rank")
        # 8 ranks' collectives found from the kept rows (derive_comm.c)
        self.assertTrue(used["spans comm"])
        # (not empty; test_comm_oracle.py checks them against the JSON)
        self.assertGreater(out["spans"]["collective"].count("\n"), 1)
        ranks = {line.split(",")[1] for line in
                 out["spans"]["gpu_busy"].splitlines()[1:]}
        self.assertEqual(ranks, {str(r) for r in range(8)})

    def test_times_and_rank_fixed_up_after_the_events(self):
        path = os.path.join(self.tmp.name, "trailer.json")
        with open(path, "w") as f:
            json.dump(trailer_trace(), f)
        out, used = self.ingest_three_ways(path)
        self.assertEqual(used["gave up"], "spans")
        self.assertSame(out, "trailer")
        busy = out["spans"]["gpu_busy"].splitlines()
        self.assertEqual(len(busy), 2, busy)
        cols = dict(zip(busy[0].split(","), busy[1].split(",")))
        # rank from the trailer; the first kernel at base + 40 µs
        self.assertEqual(cols["rank"], "2")
        self.assertEqual(int(cols["first_ts"]), 1700000000000000000 + 40000)
        self.assertEqual(int(cols["last_end"]), 1700000000000000000 + 175000)

    def test_two_files_of_one_rank(self):
        """Two files that both say rank 2, the second 1 ms later: their
        intervals are gathered and merged into one rank's sweep."""
        d = os.path.join(self.tmp.name, "run")
        os.mkdir(d)
        doc = trailer_trace()
        for name in ("a.json", "b.json"):
            with open(os.path.join(d, name), "w") as f:
                json.dump(doc, f)
            for e in doc["traceEvents"]:
                e["ts"] += 1000
        out, used = self.ingest_three_ways(d)
        self.assertSame(out, "two files")
        busy = out["spans"]["gpu_busy"].splitlines()
        self.assertEqual(len(busy), 2, busy)
        cols = dict(zip(busy[0].split(","), busy[1].split(",")))
        # first kernel of a.json to the memcpy end of b.json, as one device
        self.assertEqual(int(cols["first_ts"]), 1700000000000000000 + 40000)
        self.assertEqual(int(cols["last_end"]),
                         1700000000000000000 + 1000000 + 175000)


class GpuStepsByStart(ProfanTest):
    """A GPU row whose launch is outside every step gets the step holding
    its own start (the writer counts such rows; derive then assigns them),
    one outside every step keeps none."""

    def test_kernel_launched_before_its_step(self):
        def X(cat, name, ts, dur, pid, tid, **args):
            return {"ph": "X", "cat": cat, "name": name, "pid": pid,
                    "tid": tid, "ts": ts, "dur": dur, "args": args}
        ev = [
            X("cuda_runtime", "cudaLaunchKernel", 50, 2, 1, 1, correlation=1),
            X("user_annotation", "ProfilerStep#7", 100, 100, 1, 1),
            X("cuda_runtime", "cudaLaunchKernel", 110, 2, 1, 1, correlation=2),
            X("kernel", "early_kernel", 120, 10, 0, 7, correlation=1),
            X("kernel", "step_kernel", 140, 10, 0, 7, correlation=2),
            X("cuda_runtime", "cudaLaunchKernel", 250, 2, 1, 1, correlation=3),
            X("kernel", "late_kernel", 300, 10, 0, 7, correlation=3),
        ]
        path = os.path.join(self.tmp.name, "early.json")
        with open(path, "w") as f:
            json.dump({"traceEvents": ev, "distributedInfo": {"rank": 0}}, f)
        self.ingest_ok(path)
        rows = self.sql("SELECT s.text AS name, k.step FROM kernel k"
                        " JOIN string s ON s.id = k.name_id ORDER BY k.ts")
        self.assertEqual([(r["name"], r["step"]) for r in rows],
                         [("early_kernel", "7"), ("step_kernel", "7"),
                          ("late_kernel", "")])


class StepHold(common.ProfanTest):
    """Rows that go out before the ProfilerStep holding them (dlrm writes
    other threads' ops before the main thread's step annotations) wait in
    the linker's step hold (src/trace/link_trace.c) and get their step in-stream;
    with PROFAN_HOLD_KB=0 they go out without one and the database pass
    ('derive late steps') gives it.  Both ways must store the same step on
    every row, on every trace fixture and the 8-rank run; and so must the
    hold kept in a temporary file (PROFAN_SPOOL_KB=0, src/core/spool.c)."""

    # step of every row; GPU rows by their content (their row ids follow
    # the order rows reached the writer, which the hold changes)
    STEPS = {
        "cpu_op": "SELECT id, step FROM cpu_op ORDER BY id",
        "runtime_call": "SELECT id, step FROM runtime_call ORDER BY id",
        "kernel": "SELECT k.file_id, k.ts, k.dur, k.device, k.stream, s.text,"
                  " k.runtime_id, k.step FROM kernel k"
                  " JOIN string s ON s.id = k.name_id ORDER BY 1, 2, 3, 4, 5, 6",
        "gpu_mem_op": "SELECT file_id, ts, dur, device, stream, kind,"
                      " runtime_id, step FROM gpu_mem_op ORDER BY 1, 2, 3, 4, 5",
        "step_time": TABLES["step_time"],
    }

    def both(self, path):
        out, err = {}, {}
        for name, env in (("hold", {}), ("db", {"PROFAN_HOLD_KB": "0"}),
                          ("file", {"PROFAN_SPOOL_KB": "0"})):
            db = os.path.join(self.tmp.name, "%s-%s.db"
                              % (name, os.path.basename(path)))
            r = common.run("ingest", path, db=db,
                           env=dict(env, PROFAN_TIMING="1"))
            self.assertEqual(r.rc, 0, r.err)
            err[name] = r.err
            out[name] = {t: common.run("--format", "csv", "sql", q, db=db).out
                         for t, q in self.STEPS.items()}
        for t in self.STEPS:
            self.assertEqual(out["hold"][t], out["db"][t], (path, t))
            self.assertEqual(out["hold"][t], out["file"][t], (path, t))
        return out, err

    def test_every_trace_fixture(self):
        for path in sorted(glob.glob(os.path.join(shared("traces"), "*.json*"))):
            with self.subTest(path=os.path.basename(path)):
                self.both(path)

    def test_dlrm_ranks_late_steps_in_stream(self):
        out, err = self.both(shared("runs", "dlrm-8rank"))
        # every rank file has rows before its step annotation: held by
        # default, left to the database pass without the hold
        self.assertEqual(err["hold"].count(" steps=1 "), 0)
        self.assertEqual(err["db"].count(" steps=1 "), 8)
        self.assertNotIn("derive late steps", err["hold"])
        self.assertIn("derive late steps", err["db"])
        self.assertEqual(len([x for x in err["hold"].split()
                              if x.startswith("held=") and x != "held=0"]), 8)
        # and the rows got steps (not all NULL)
        self.assertIn(",10\n", out["hold"]["cpu_op"])
