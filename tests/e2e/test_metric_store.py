"""test_metric_store.py — the core metrics stored per run at ingest
(schema 026: core_run_metric, filled from run_metric_core_calc) are the
metrics of the definition, for every run, and travel with the run.

Oracles, none of them profan's stored rows:
- the definition itself as it stood before 026 (schema/011's
  run_step_sample and run_metric_core from the test's own copy of the
  migration's text, data/core-metrics-011.sql, over 040's step_steady,
  loaded as TEMP views), evaluated over every run of a database of
  several fixtures (one-rank traces of two eras, the dlrm 8-rank run, a
  memory snapshot, a Triton trace): the stored rows and the rewritten
  views must give the same rows;
- Python: the median of the ProfilerStep durations read back from a
  synthetic trace's JSON (every step within the steady tolerance);
- a `merge --summaries-only` archive and a plain `merge` of the database
  carry the same values per run name; `rm` leaves no stored row behind.
"""
import json
import os
import sqlite3
import statistics
import subprocess

from common import ProfanTest, PROFAN, ROOT, shared
from test_history import write_trace

FIXTURES = (
    ("h100", ("traces", "kineto-h100-2026-before.json")),
    ("resnet", ("traces", "kineto-resnet50-2021.pt.trace.json.gz")),
    ("dlrm", ("runs", "dlrm-8rank")),
    ("cs336", ("snapshots", "cs336-fullstep-2025.pickle")),
    ("triton", ("traces", "hta-triton.json.gz")),
)


# schema/051's memory split: fragmentation_pct counts the free space inside
# segments that hold live blocks, reserved_unused_pct the whole free
# cached segments (issue 31)
FRAG_011 = """SELECT run_id, 'fragmentation_pct',
    100.0 * sum(inactive_bytes) / max(sum(reserved_bytes), 1)
  FROM snapshot GROUP BY run_id"""
FRAG_051 = """SELECT run_id, 'fragmentation_pct',
    100.0 * sum(fragmented_bytes) / max(sum(reserved_bytes), 1)
  FROM snapshot GROUP BY run_id
UNION ALL
SELECT run_id, 'reserved_unused_pct',
    100.0 * sum(unused_bytes) / max(sum(reserved_bytes), 1)
  FROM snapshot GROUP BY run_id"""


def old_views():
    """011's definitions of run_step_sample and run_metric_core (the
    test's own copy: data/core-metrics-011.sql, with 051's memory split),
    over the schema's step_steady (section "was 040" of the baseline: the
    step time that bounds the work, no spread-widened tolerance), as TEMP
    views old_ss,
    old_rss, old_core."""
    def src_of(path):
        return open(path).read()

    def view(src, name, new):
        i = src.index("CREATE VIEW %s AS" % name)
        j = src.index(";\n", i)
        text = src[i:j + 1].replace("CREATE VIEW %s AS" % name,
                                    "CREATE TEMP VIEW %s AS" % new, 1)
        assert name != "run_metric_core" or FRAG_011 in text
        return text.replace("FROM step_steady", "FROM old_ss").replace(
            FRAG_011, FRAG_051)
    s011 = src_of(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               "data", "core-metrics-011.sql"))
    s040 = src_of(os.path.join(ROOT, "schema", "001-baseline.sql"))
    return (view(s040, "step_steady", "old_ss")
            + view(s011, "run_step_sample", "old_rss")
            + view(s011, "run_metric_core", "old_core"))


def close(a, b):
    """Rows equal but the last column, which may differ by rounding."""
    if a[:-1] != b[:-1]:
        return False
    x, y = a[-1], b[-1]
    if x is None or y is None or isinstance(x, str):
        return x == y
    return abs(x - y) <= 1e-9 * max(1.0, abs(x))


class MetricStore(ProfanTest):

    def setUp(self):
        super().setUp()
        for name, parts in FIXTURES:
            self.ingest_ok(shared(*parts), extra=["--name", name, "--quiet"])
        self.steps_ms = [10.0, 10.3, 9.8, 10.1, 10.2, 9.9, 10.05]
        path = os.path.join(self.tmp.name, "synth.json")
        write_trace(path, self.steps_ms, tag="synth")
        with open(path) as f:
            self.trace_steps = [e["dur"] for e in json.load(f)["traceEvents"]
                                if e["name"].startswith("ProfilerStep#")]
        self.ingest_ok(path, extra=["--name", "synth", "--quiet"])

    def rows(self, db, sql, old=False):
        con = sqlite3.connect(db)
        if old:
            con.executescript(old_views())
        r = sorted(con.execute(sql).fetchall(), key=repr)
        con.close()
        return r

    def assert_rows_close(self, a, b, what):
        self.assertEqual(len(a), len(b), what)
        for x, y in zip(a, b):
            self.assertTrue(close(x, y), "%s: %r != %r" % (what, x, y))

    def test_stored_metrics_equal_the_definition_for_every_run(self):
        old = self.rows(self.db, "SELECT run_id, metric, value FROM old_core",
                        old=True)
        new = self.rows(self.db, "SELECT run_id, metric, value"
                        " FROM core_run_metric")
        self.assertGreater(len(new), 60)
        self.assertEqual({r[0] for r in new},
                         {r[0] for r in self.rows(self.db,
                                                  "SELECT id FROM run")})
        self.assert_rows_close(old, new, "core metrics")
        # the rewritten views, as read by check and the steps query
        self.assert_rows_close(
            self.rows(self.db, "SELECT * FROM old_ss", old=True),
            self.rows(self.db, "SELECT * FROM step_steady"), "step_steady")
        self.assert_rows_close(
            self.rows(self.db, "SELECT * FROM old_rss", old=True),
            self.rows(self.db, "SELECT run_id, metric, step, value FROM"
                      " run_step_sample WHERE steady"),
            "run_step_sample")
        # run_metric reads the three stored tables
        n = self.rows(self.db, "SELECT (SELECT count(*) FROM run_metric) -"
                      " (SELECT count(*) FROM core_run_metric) -"
                      " (SELECT count(*) FROM hta_run_metric) -"
                      " (SELECT count(*) FROM op_run_metric)")
        self.assertEqual(n, [(0,)])

    def test_step_time_median_from_the_trace(self):
        want = statistics.median(self.trace_steps) / 1000.0     # µs -> ms
        got = self.rows(self.db, "SELECT m.value FROM core_run_metric m"
                        " JOIN run r ON r.id = m.run_id WHERE r.name ="
                        " 'synth' AND m.metric = 'step_time_median_ms'")
        self.assertEqual(len(got), 1)
        self.assertAlmostEqual(got[0][0], want, places=9)
        steps = self.rows(self.db, "SELECT m.value FROM core_run_metric m"
                          " JOIN run r ON r.id = m.run_id WHERE r.name ="
                          " 'synth' AND m.metric = 'steps'")
        self.assertEqual(steps, [(len(self.trace_steps),)])

    def by_name(self, db):
        return self.rows(db, "SELECT r.name, m.metric, m.value FROM"
                         " core_run_metric m JOIN run r ON r.id = m.run_id")

    def test_merge_and_archive_carry_the_metrics(self):
        want = self.by_name(self.db)
        hist = os.path.join(self.tmp.name, "history.db")
        p = subprocess.run([PROFAN, "merge", "--quiet", "--summaries-only",
                            "--into", hist, self.db], capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assert_rows_close(self.by_name(hist), want, "archive")
        # a plain merge of one run's database recomputes them
        synth = os.path.join(self.tmp.name, "s.json")
        write_trace(synth, self.steps_ms, tag="synth")
        merged = os.path.join(self.tmp.name, "merged.db")
        for name, src in (("dlrm", shared("runs", "dlrm-8rank")),
                          ("synth", synth)):
            one = os.path.join(self.tmp.name, name + ".db")
            p = subprocess.run([PROFAN, "--db", one, "ingest", "--quiet",
                                "--name", name, src], capture_output=True,
                               text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            p = subprocess.run([PROFAN, "merge", "--quiet", "--into", merged,
                                "--name", name, one], capture_output=True,
                               text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
        got = self.by_name(merged)
        self.assert_rows_close(
            got, [r for r in want if r[0] in ("dlrm", "synth")], "merge")

    def test_rm_leaves_no_stored_metric(self):
        r = self.profan("rm", "dlrm")
        self.assertEqual(r.rc, 0, r.err)
        left = self.rows(self.db, "SELECT count(*) FROM core_run_metric"
                         " WHERE run_id NOT IN (SELECT id FROM run)")
        self.assertEqual(left, [(0,)])
        self.assertEqual(
            {r[0] for r in self.by_name(self.db)},
            {"h100", "resnet", "cs336", "triton", "synth"})
