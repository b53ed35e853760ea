"""test_sweeps.py — the GPU and wall-time sweeps and the steps of rows,
on cases with answers known by construction; the answers on every fixture
are checked against the JSON in test_trace.py (busy unions),
test_trace_oracle.py (every step-breakdown class, the idle gaps, kernel
steps, gpu_busy's counts) and test_comm_oracle.py (comm/compute overlap),
and against the specifications in test_oracle.py.

Fixups: a hand-written trace whose times and rank are fixed up after its
events went in (baseTimeNanoseconds and distributedInfo after
traceEvents), and two files of one rank gathered into one sweep.
GpuStepsByStart: a GPU row whose launch is outside every step gets the
step holding its own start.  StepHold: rows that come before the
ProfilerStep holding them wait in the linker's step hold and get their
step in-stream, with the hold in memory or in a temporary file, also
when a step comes while rows of a later step wait (mi300) and when more
than 8 MB of ops come before the first step (mtia).
"""
import glob
import json
import os

import bisect

import common
import trace_reference as ref
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


class Fixups(ProfanTest):

    def tables(self, *paths):
        self.ingest_ok(*paths)
        return {t: common.run("--format", "csv", "sql", q, db=self.db).out
                for t, q in TABLES.items()}

    def test_times_and_rank_fixed_up_after_the_events(self):
        path = os.path.join(self.tmp.name, "trailer.json")
        with open(path, "w") as f:
            json.dump(trailer_trace(), f)
        out = self.tables(path)
        busy = out["gpu_busy"].splitlines()
        self.assertEqual(len(busy), 2, busy)
        cols = dict(zip(busy[0].split(","), busy[1].split(",")))
        # rank from the trailer; the first kernel at base + 40 µs
        self.assertEqual(cols["rank"], "2")
        self.assertEqual(int(cols["first_ts"]), 1700000000000000000 + 40000)
        self.assertEqual(int(cols["last_end"]), 1700000000000000000 + 175000)
        # the NCCL kernel (60-140 µs) overlaps the compute one (40-90)
        ov = out["comm_overlap"].splitlines()
        cols = dict(zip(ov[0].split(","), ov[1].split(",")))
        self.assertEqual((int(cols["comm_ns"]), int(cols["comp_ns"]),
                          int(cols["overlap_ns"])), (80000, 50000, 30000))

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
        out = self.tables(d)
        busy = out["gpu_busy"].splitlines()
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
    the linker's step hold (src/trace/link_trace.c) and get their step
    in-stream; kept in a temporary file (PROFAN_SPOOL_KB=0,
    src/core/spool.c) the hold gives every row the same step.  (The step
    of every row against its specification: test_oracle.py.)"""

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
        for name, env in (("memory", {}), ("file", {"PROFAN_SPOOL_KB": "0"})):
            db = os.path.join(self.tmp.name, "%s-%s.db"
                              % (name, os.path.basename(path)))
            r = common.run("ingest", path, db=db,
                           env=dict(env, PROFAN_TIMING="1"))
            self.assertEqual(r.rc, 0, r.err)
            err[name] = r.err
            out[name] = {t: common.run("--format", "csv", "sql", q, db=db).out
                         for t, q in self.STEPS.items()}
        for t in self.STEPS:
            self.assertEqual(out["memory"][t], out["file"][t], (path, t))
        return out, err

    def test_dlrm_ranks_late_steps_in_stream(self):
        out, err = self.both(shared("runs", "dlrm-8rank"))
        # every rank file has rows before its step annotation: held, and
        # no file needs linking again
        for e in err.values():
            self.assertEqual(e.count(" steps=1 "), 0)
            self.assertNotIn("linked again from its rows", e)
            self.assertEqual(len([x for x in e.split() if
                                  x.startswith("held=") and x != "held=0"]),
                             8)
        # and the rows got steps (not all NULL)
        self.assertIn(",10\n", out["memory"]["cpu_op"])

    def steps_by_json(self, path, cats):
        """{step or '': rows} of the events of categories cats by the
        CPU ProfilerStep#N annotation holding their start, from the JSON."""
        evs = common.events(path)
        spans = sorted((ref.us_to_ns(e["ts"]),
                        ref.us_to_ns(e["ts"]) + ref.us_to_ns(e.get("dur", 0)),
                        int(ref.STEP.match(e["name"]).group(1)))
                       for e in evs if ref.kind_of(e) == "user_annotation"
                       and ref.STEP.match(e.get("name", "")))
        starts = [s for s, _, _ in spans]
        out = {}
        for e in evs:
            if ref.kind_of(e) not in cats or "ts" not in e:
                continue
            t = ref.us_to_ns(e["ts"])
            i = bisect.bisect_right(starts, t) - 1
            n = str(spans[i][2]) if i >= 0 and t < spans[i][1] else ""
            out[n] = out.get(n, 0) + 1
        return out

    def check_one_pass(self, path):
        """path links in one pass, held rows and all, memory or file, and
        its ops and runtime calls get the steps of the JSON."""
        _, err = self.both(path)
        for e in err.values():
            self.assertIn(" steps=0 ", e)
            self.assertNotIn("linked again from its rows", e)
        db = os.path.join(self.tmp.name, "file-%s.db" % os.path.basename(path))
        for table, cats in (("cpu_op", ("cpu_op",)),
                            ("runtime_call", ("runtime",))):
            r = common.run("--format", "csv", "sql", "SELECT step, count(*)"
                           " AS n FROM %s GROUP BY step" % table, db=db)
            self.assertEqual(r.rc, 0, r.err)
            got = {x["step"]: int(x["n"]) for x in r.rows()}
            self.assertEqual(got, self.steps_by_json(path, cats),
                             (path, table))

    def test_steps_before_rows_of_later_steps(self):
        """tracelens-mi300: the three ProfilerStep annotations come after
        the main thread's ops of the first and before the other threads'
        ops of all three: a step that comes sends out only the held rows it
        holds; the rest wait for theirs (they went out stepless, then the
        whole file was linked again from its rows)."""
        self.check_one_pass(shared("traces",
                                   "tracelens-mi300-resnet-ckpt.json.gz"))

    def test_eight_mb_of_ops_before_the_first_step(self):
        """hta-mtia: 36,000 ops (8 MB of held records) before the one
        ProfilerStep annotation: the hold before a file's first step
        takes them (it gave up at 4 MB, and the file was linked again)."""
        self.check_one_pass(shared("traces", "hta-mtia-rank0.json.gz"))
