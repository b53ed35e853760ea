"""test_legacy_trace.py — Chrome's "JSON Array Format" (issue 37) and JSON
arrays that are not traces (issue 33, point 10).

A PyTorch without Kineto (every release before 1.8, Debian's and source
builds today) writes its trace as a bare array of complete events without
"cat": `[{"name": "aten::mm", "ph": "X", "ts": 344, "dur": 13, "tid": 1,
"pid": "CPU functions", "args": {}}, ...]`.  These tests need no torch:

- the real 2021 Kineto trace with its traceEvents written as a bare array
  ingests as the object form does (every named query compared);
- the same trace's CPU ops as the legacy exporter writes them (no cat,
  pid "CPU functions", GPU and runtime rows gone): operators with calls,
  total and self time, steps, against numbers computed here;
- "CUDA functions" ranges (the legacy exporter's per-op CUDA intervals)
  are not kernels;
- a JSON array without trace events, or with nothing to store, is skipped
  with a reason in a directory and never blocks its ingest; named alone it
  is refused with one line and the database unchanged; a trace without
  events is never an empty run;
- --rank and --base-time: the rank and clock of a trace that has neither.
test_torch.py does the same with traces PyTorch writes while it runs.
"""
import gzip
import json
import os
import re

import trace_reference as ref
from common import ProfanTest, shared

TRACE_2021 = ("traces", "kineto-resnet50-2021-workers4.pt.trace.json.gz")


def load(path):
    with gzip.open(path, "rt") as f:
        return json.load(f)


def write(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def legacy_form(evs):
    """The CPU functions of a Kineto trace as the legacy exporter writes
    them: complete events, no cat, pid "CPU functions", empty args."""
    out = []
    for e in evs:
        if ref.kind_of(e) != "cpu_op":
            continue
        out.append({"name": e["name"], "ph": "X", "ts": e["ts"],
                    "dur": e["dur"], "tid": e["tid"],
                    "pid": "CPU functions", "args": {}})
    return out


class LegacyArrays(ProfanTest):

    def setUp(self):
        super().setUp()
        self.doc = load(shared(*TRACE_2021))

    def test_legacy_kineto_events_as_an_array(self):
        """traceEvents alone, as a bare array: the same rows and answers as
        the object (which has no top-level key this trace needs)."""
        obj = write(os.path.join(self.tmp.name, "obj.json"), self.doc)
        arr = write(os.path.join(self.tmp.name, "arr.json"),
                    self.doc["traceEvents"])
        self.ingest_ok(obj, extra=["--name", "obj", "--quiet"])
        self.ingest_ok(arr, extra=["--name", "arr", "--quiet"])
        want = ref.counts(self.doc["traceEvents"], legacy=True)
        for kind, table in (("kernel", "kernel"), ("cpu_op", "cpu_op"),
                            ("runtime", "runtime_call"),
                            ("memory", "memory_event")):
            got = self.sql("SELECT count(*) AS n FROM %s t JOIN run r ON"
                           " r.id = t.run_id WHERE r.name = 'arr'" % table)
            self.assertEqual(int(got[0]["n"]), want.get(kind, 0), table)
        self.assertGreater(want["memory"], 10000)
        for q in ("operators", "top-kernels", "steps", "memory-timeline",
                  "gpu-utilization", "category-breakdown", "step-breakdown",
                  "launch-overhead", "idle-gaps"):
            self.assertEqual(self.query(q, run_ref="arr"),
                             self.query(q, run_ref="obj"), q)

    def test_legacy_exporter_cpu_functions(self):
        """Operators of the legacy form: calls, total and self time (dur
        minus direct children on the thread), and the ProfilerStep#N ops
        as steps."""
        evs = legacy_form(self.doc["traceEvents"])
        path = write(os.path.join(self.tmp.name, "legacy.json"), evs)
        self.ingest_ok(path, extra=["--quiet"])
        selfs = ref.self_ns([(str(e["tid"]), ref.us_to_ns(e["ts"]),
                              ref.us_to_ns(e["dur"])) for e in evs])
        agg = {}
        for e, s in zip(evs, selfs):
            a = agg.setdefault(e["name"], [0, 0, 0])
            a[0] += 1
            a[1] += ref.us_to_ns(e["dur"])
            a[2] += s
        got = self.sql("SELECT s.text AS name, sum(c.calls) AS calls,"
                       " sum(c.total_ns) AS total, sum(c.self_ns) AS self"
                       " FROM cpu_op_summary c JOIN string s ON s.id ="
                       " c.name_id GROUP BY s.text")
        self.assertEqual({g["name"]: [int(g["calls"]), int(g["total"]),
                                      int(g["self"])] for g in got}, agg)
        rows = self.query("operators", "--param", "limit=5")
        top = sorted(agg.items(), key=lambda kv: (-kv[1][2], kv[0]))[:5]
        self.assertEqual([r["name"] for r in rows], [n for n, _ in top])
        steps = {int(ref.STEP.match(e["name"]).group(1)):
                 ref.us_to_ns(e["dur"]) for e in evs
                 if ref.STEP.match(e["name"])}
        self.assertEqual(len(steps), 6)
        got = self.sql("SELECT step, dur, source FROM step")
        self.assertEqual({int(g["step"]): int(g["dur"]) for g in got}, steps)
        self.assertEqual({g["source"] for g in got}, {"ProfilerStep"})
        f = self.sql("SELECT rank, rank_source, time_regime FROM run_file")
        self.assertEqual(f, [{"rank": "0", "rank_source": "default",
                              "time_regime": "absolute_us"}])
        n = self.sql("SELECT (SELECT count(*) FROM kernel) + (SELECT count(*)"
                     " FROM runtime_call) + (SELECT count(*) FROM"
                     " annotation) AS n")
        self.assertEqual(n[0]["n"], "0")

    def test_legacy_cuda_functions_are_not_kernels(self):
        """pid "CUDA functions" ranges (the pre-1.8 exporter with
        use_cuda) are per-op CUDA event intervals named after the op: not
        stored; their flows neither."""
        evs = [
            {"name": "aten::mm", "ph": "X", "ts": 10, "dur": 50, "tid": 1,
             "pid": "CPU functions", "args": {}},
            {"name": "aten::mm", "ph": "s", "ts": 10, "tid": 1,
             "pid": "CPU functions", "id": 0, "cat": "cpu_to_cuda",
             "args": {}},
            {"name": "aten::mm", "ph": "f", "ts": 12, "tid": 0,
             "pid": "CUDA functions", "id": 0, "cat": "cpu_to_cuda",
             "args": {}},
            {"name": "aten::mm", "ph": "X", "ts": 12, "dur": 40, "tid": 0,
             "pid": "CUDA functions", "args": {}}]
        path = write(os.path.join(self.tmp.name, "cuda.json"), evs)
        self.ingest_ok(path, extra=["--quiet"])
        n = self.sql("SELECT (SELECT count(*) FROM cpu_op) AS ops,"
                     " (SELECT count(*) FROM kernel) AS k,"
                     " (SELECT n_records FROM run_file) AS rec")
        self.assertEqual(n, [{"ops": "1", "k": "0", "rec": "4"}])


class NotTraces(ProfanTest):
    """JSON arrays that are not traces, and traces without events."""

    def setUp(self):
        super().setUp()
        # a real trace without distributedInfo and without a rank in its
        # name: alone in a run it is rank 0; with a second trace the run
        # would be refused
        self.real = load(shared(*TRACE_2021))

    def run_dir(self, extra):
        d = os.path.join(self.tmp.name, "run")
        os.makedirs(d, exist_ok=True)
        write(os.path.join(d, "a-trace.json"), self.real)
        for name, text in extra.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        return d

    def test_legacy_non_trace_arrays_skipped_in_a_directory(self):
        cases = {
            "b-ph-only.json": '[{"ph":"X","name":"x"}]',
            "c-numbers.json": "[1, 2, 3]",
            "d-strings.json": '["ph", "ts"]',
            "e-nested.json": '[[{"ph":"X","ts":1}]]',
        }
        d = self.run_dir(cases)
        r = self.profan("ingest", "--name", "dir", d)
        self.assertEqual(r.rc, 0, r.err)
        why = ('JSON array without trace events (no object with "ph" and'
               ' "ts" in its first MiB)')
        for name in sorted(cases):
            self.assertIn("profan: %s: skipped: %s\n"
                          % (os.path.join(d, name), why), r.err)
        self.assertRegex(r.err, r"ingested run 1: 1 file, .* \(some files"
                         r" skipped, see above\)")
        f = self.sql("SELECT path, rank, rank_source FROM run_file")
        self.assertEqual(f, [{"path": os.path.join(d, "a-trace.json"),
                              "rank": "0", "rank_source": "default"}])

    def test_legacy_events_with_nothing_to_store_skipped(self):
        """An array of trace events none of which becomes a row (metadata
        only): skipped once parsed, and the run is the real trace's (no
        "no rank ... in a run of 2 traces")."""
        meta = json.dumps([{"name": "process_name", "ph": "M", "ts": 0,
                            "pid": 1, "tid": 0, "args": {"name": "x"}},
                           {"name": "launch", "ph": "s", "ts": 5, "pid": 1,
                            "tid": 1, "id": 3, "cat": "async"}])
        d = self.run_dir({"z-meta.json": meta})
        r = self.profan("ingest", "--name", "dir", d)
        self.assertEqual(r.rc, 0, r.err)
        self.assertIn("profan: %s: skipped: no events to store (2 read; none"
                      " is an op, kernel, runtime call, annotation or memory"
                      ' event with a "ts")\n' % os.path.join(d, "z-meta.json"),
                      r.err)
        self.assertRegex(r.err, r"ingested run 1: 1 file, ")
        f = self.sql("SELECT path, rank FROM run_file")
        self.assertEqual(f, [{"path": os.path.join(d, "a-trace.json"),
                              "rank": "0"}])

    def test_legacy_alone_refused_and_nothing_stored(self):
        self.ingest_ok(shared("traces", "hta-triton.json.gz"),
                       extra=["--quiet"])
        before = self.db_bytes()
        cases = [
            ("ph-only.json", '[{"ph":"X","name":"x"}]',
             'no events to store (1 read; none is an op, kernel, runtime'
             ' call, annotation or memory event with a "ts"); 1 item'
             ' skipped, the first at byte 1: event without a numeric "ts"'
             ' skipped'),
            ("empty-array.json", "[]",
             'no events to store (0 read; none is an op, kernel, runtime'
             ' call, annotation or memory event with a "ts")'),
            ("empty-events.json", '{"traceEvents": []}',
             'no events to store (0 read; none is an op, kernel, runtime'
             ' call, annotation or memory event with a "ts")'),
            # items that are not objects: counted, the first one named by
            # the offset of its last byte (the "1"; the closing quote)
            ("numbers.json", "[1, 2]",
             'no events to store (0 read; none is an op, kernel, runtime'
             ' call, annotation or memory event with a "ts"); 2 items'
             ' skipped, the first at byte 1: non-object item in'
             ' traceEvents skipped'),
            ("strings.json", '{"traceEvents": [{"ph":"M"}, "x"]}',
             'no events to store (1 read; none is an op, kernel, runtime'
             ' call, annotation or memory event with a "ts"); 1 item'
             ' skipped, the first at byte 31: non-object item in'
             ' traceEvents skipped'),
        ]
        for name, text, msg in cases:
            p = os.path.join(self.tmp.name, name)
            with open(p, "w") as f:
                f.write(text)
            r = self.profan("ingest", p)
            self.assertEqual((r.rc, r.err), (6, "profan: %s: %s\n"
                                             % (p, msg)), name)
            self.assertEqual(self.db_bytes(), before, name)
        # a directory of nothing but such files: nothing to ingest
        d = os.path.join(self.tmp.name, "d")
        os.mkdir(d)
        for i, name in enumerate(("x.json", "y.json")):
            write(os.path.join(d, name), [{"name": "m", "ph": "M", "ts": i,
                                           "pid": 1, "tid": 0}])
        r = self.profan("ingest", d)
        self.assertEqual((r.rc, r.err), (6, "profan: %s: nothing to ingest:"
                                         " none of the 2 traces holds an"
                                         " event to store\n" % d))
        self.assertEqual(self.db_bytes(), before)


class RankAndClock(ProfanTest):
    """--rank and --base-time: what the handler passes for a legacy trace."""

    def setUp(self):
        super().setUp()
        doc = load(shared(*TRACE_2021))
        self.evs = legacy_form(doc["traceEvents"])
        # the legacy exporter counts from the profiler's start
        t0 = min(e["ts"] for e in self.evs)
        for e in self.evs:
            e["ts"] -= t0
        self.t0_us = t0
        self.path = write(os.path.join(self.tmp.name, "w.json"), self.evs)

    def test_legacy_rank_and_base_time(self):
        self.ingest_ok(self.path, extra=["--quiet"])
        f = self.sql("SELECT rank, rank_source, time_regime, base_time_ns"
                     " FROM run_file")
        self.assertEqual(f, [{"rank": "0", "rank_source": "default",
                              "time_regime": "unknown_origin",
                              "base_time_ns": ""}])
        base = self.t0_us * 1000
        self.ingest_ok(self.path, extra=["--quiet", "--replace", "--rank",
                                         "3", "--base-time", base])
        f = self.sql("SELECT rank, rank_source, time_regime, base_time_ns"
                     " FROM run_file")
        self.assertEqual(f, [{"rank": "3", "rank_source": "option",
                              "time_regime": "relative_us",
                              "base_time_ns": str(base)}])
        want = {int(ref.STEP.match(e["name"]).group(1)):
                base + ref.us_to_ns(e["ts"]) for e in self.evs
                if ref.STEP.match(e["name"])}
        got = self.sql("SELECT rank, step, ts FROM step")
        self.assertEqual({int(g["step"]): int(g["ts"]) for g in got}, want)
        self.assertEqual({g["rank"] for g in got}, {"3"})
        m = self.sql("SELECT min(ts) AS t FROM cpu_op")
        self.assertEqual(int(m[0]["t"]), base)

    def test_legacy_own_rank_and_clock_win(self):
        """A trace's own distributedInfo rank and epoch times are kept; the
        options say so only for the clock (a note)."""
        p = shared("traces", "hta-compare-base.json.gz")
        r = self.profan("ingest", "--rank", "5", "--base-time",
                        "1700000000000000000", p)
        self.assertEqual(r.rc, 0, r.err)
        self.assertIn("profan: note: %s has a time base of its own" % p,
                      r.err)
        f = self.sql("SELECT rank, rank_source, time_regime FROM run_file")
        self.assertEqual(f, [{"rank": "1", "rank_source": "distributedInfo",
                              "time_regime": "absolute_us"}])

    def test_legacy_options_misused(self):
        other = write(os.path.join(self.tmp.name, "v.json"), self.evs[:50])
        for args, msg in (
                (["--rank", "1", self.path, other],
                 "--rank applies to one trace file; %s %s holds 2"
                 % (self.path, other)),
                (["--base-time", "5", self.path, other],
                 "--base-time applies to one trace file; %s %s holds 2"
                 % (self.path, other)),
                (["--rank", "-1", self.path],
                 "--rank needs an integer >= 0, got '-1'"),
                (["--rank", "x", self.path],
                 "--rank needs an integer >= 0, got 'x'"),
                (["--base-time", "0", self.path],
                 "--base-time needs epoch nanoseconds > 0, got '0'")):
            r = self.profan("ingest", *args)
            self.assertEqual(r.rc, 2, (args, r.err))
            self.assertEqual(r.err.splitlines()[0], "profan: " + msg, args)
            self.assertFalse(os.path.exists(self.db), args)


class HostCollectives(ProfanTest):
    """gloo collectives of a real Kineto CPU-only trace (HTA's rank 34 of
    300): user annotations gloo:all_reduce with the tensor's shape."""

    def test_legacy_gloo_annotations_are_collectives(self):
        path = shared("traces", "hta-cpu-only-gloo-rank34.json.gz")
        doc = load(path)
        want = []
        for e in doc["traceEvents"]:
            if e.get("ph") == "X" and str(e.get("name")).startswith("gloo:"):
                n = 1
                for d in e["args"]["Input Dims"][0]:
                    n *= d
                want.append((ref.us_to_ns(e["ts"]), ref.us_to_ns(e["dur"]),
                             n, 4 * n))
        want.sort()
        self.assertEqual(len(want), 10)
        self.ingest_ok(path, extra=["--quiet"])
        got = self.sql("SELECT ts, dur, in_nelems, bytes, op, c10d_name,"
                       " dtype, group_size, args_from, kernel_id, seq"
                       " FROM collective ORDER BY ts")
        base = int(doc["baseTimeNanoseconds"])
        self.assertEqual([(int(g["ts"]) - base, int(g["dur"]),
                           int(g["in_nelems"]), int(g["bytes"]))
                          for g in got], want)
        self.assertEqual({(g["op"], g["c10d_name"], g["dtype"],
                           g["group_size"], g["args_from"], g["kernel_id"])
                          for g in got},
                         {("all_reduce", "gloo:all_reduce", "float32",
                           str(doc["distributedInfo"]["world_size"]),
                           "annotation", "")})
        self.assertEqual([int(g["seq"]) for g in got], list(range(10)))
        rows = self.query("collectives")
        self.assertEqual([(r["op"], int(r["count"]), int(r["total_bytes"]))
                          for r in rows],
                         [("all_reduce", 10, sum(w[3] for w in want))])
