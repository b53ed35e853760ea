"""test_merge_history.py — `profan merge --summaries-only` (issue 19): a
history database holds each run's identity, tags, baselines and summary
tables, not its event rows, and `runs`, `trend`, `check` and
`diff-metrics` answer on it exactly as on the detailed database.

The detailed database holds the dlrm-8rank run and a series of one-rank
synthetic runs whose step times this file chooses (test_history.py's
write_trace): ten runs within 1 % of each other, then one 15 % slower.
The gate's verdict on the slow run is known from that construction.
"""
import os
import subprocess

from common import ProfanTest, PROFAN, shared
from test_history import write_trace

METRICS = ("step_time_median_ms", "gpu_ms", "steps", "comm_pct",
           "step_gpu_busy_pct")


class MergeHistory(ProfanTest):

    def setUp(self):
        super().setUp()
        self.hist = os.path.join(self.tmp.name, "history.db")
        self.ingest_ok(shared("runs", "dlrm-8rank"),
                       extra=["--name", "dlrm", "--tag", "branch=main",
                              "--quiet"])
        for i in range(10):
            ms = [10.0 * (1 + 0.01 * ((i * 7 + k) % 3 - 1)) for k in range(8)]
            self.synth("n%03d" % i, ms)
        self.synth("slow", [11.5] * 8)
        r = self.profan("baseline", "set", "main", "n000")
        self.assertEqual(r.rc, 0, r.err)

    def synth(self, name, step_ms):
        path = os.path.join(self.tmp.name, name + ".json")
        write_trace(path, step_ms, tag=name)
        self.ingest_ok(path, extra=["--name", name, "--tag", "branch=main",
                                    "--quiet"])
        os.remove(path)

    def both(self, *args):
        """(rc, stdout, stderr) of profan args on the detailed database and
        on the history database."""
        out = []
        for db in (self.db, self.hist):
            p = subprocess.run([PROFAN, "--db", db] + list(args),
                               capture_output=True, text=True)
            out.append((p.returncode, p.stdout, p.stderr))
        return out

    def archive(self):
        p = subprocess.run([PROFAN, "merge", "--summaries-only", "--into",
                            self.hist, self.db], capture_output=True,
                           text=True)
        return p.returncode, p.stderr

    def test_merge_summaries_only_answers_unchanged(self):
        rc, err = self.archive()
        self.assertEqual(rc, 0, err)
        self.assertRegex(err, r"^profan: archived 12 runs into .*history.db "
                         r"\(summaries only\): \d+ rows, [0-9.]+ s\n$")
        a, b = self.both("--format", "csv", "runs")
        self.assertEqual(a, b)
        self.assertEqual(a[1].count("\n"), 13)
        for m in METRICS:
            a, b = self.both("--format", "csv", "trend", m)
            self.assertEqual(a, b, m)
            self.assertEqual(a[0], 0, a[2])
            a, b = self.both("--format", "csv", "trend", m, "--tag",
                             "branch=main", "--last", "5")
            self.assertEqual(a, b, m)
        a, b = self.both("--format", "csv", "query", "diff-metrics",
                         "--run", "slow", "--param", "baseline=n000")
        self.assertEqual(a, b)
        self.assertGreater(a[1].count("\n"), 5)
        a, b = self.both("--format", "csv", "query", "run-metrics",
                         "--run", "dlrm")
        self.assertEqual(a, b)
        # the gate: the 15 % slower run fails on both, the others pass
        a, b = self.both("--format", "json", "check", "--baseline", "main",
                         "--run", "slow")
        self.assertEqual(a, b)
        self.assertEqual(a[0], 1, a)
        a, b = self.both("--format", "json", "check", "--baseline", "main",
                         "--run", "n009")
        self.assertEqual(a, b)
        self.assertEqual(a[0], 0, a)
        # what check compares runs by (the view it reads), by name
        a, b = self.both("--format", "csv", "sql",
                         "SELECT f.run_id, f.kind, s.text FROM run_fingerprint"
                         " f JOIN string s ON s.id = f.name_id ORDER BY 1, 2,"
                         " 3")
        self.assertEqual(a, b)
        self.assertGreaterEqual(a[1].count(",op,"), 10)
        # no event rows came along
        for t in ("kernel", "cpu_op", "runtime_call", "annotation",
                  "gpu_mem_op"):
            p = subprocess.run([PROFAN, "--db", self.hist, "sql",
                                "SELECT count(*) FROM " + t],
                               capture_output=True, text=True)
            self.assertEqual(p.stdout.split()[-1], "0", t)

    def test_merge_summaries_only_twice_skips(self):
        rc, err = self.archive()
        self.assertEqual(rc, 0, err)
        with open(self.hist, "rb") as f:
            before = f.read()
        rc, err = self.archive()
        self.assertEqual(rc, 0, err)
        self.assertIn("profan: %s: run slow is already in the target as run"
                      " 12 (same content); skipped\n" % self.db, err)
        self.assertTrue(err.endswith("profan: nothing merged: every run is"
                                     " already in %s\n" % self.hist), err)
        with open(self.hist, "rb") as f:
            self.assertEqual(f.read(), before)
        # a new run of the detailed database is added, the rest skipped
        self.synth("later", [10.0] * 8)
        rc, err = self.archive()
        self.assertEqual(rc, 0, err)
        self.assertIn("archived 1 run into", err)
        a, b = self.both("--format", "csv", "trend", "step_time_median_ms")
        self.assertEqual(a, b)

    def test_merge_summaries_only_usage(self):
        p = subprocess.run([PROFAN, "merge", "--summaries-only", "--name",
                            "x", "--into", self.hist, self.db],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("profan: --summaries-only keeps the runs' names: no "
                      "--name\n", p.stderr)
        self.assertFalse(os.path.exists(self.hist))
