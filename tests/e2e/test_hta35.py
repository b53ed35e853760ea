"""test_hta35.py — issue 35: the named queries idle-breakdown and
queue-length read the per-stream numbers the derive sweep stores (schema
106, since 111 on hta_stream alone: its idle intervals in cause and gap
order and its queue changes in change order as JSON arrays) and must answer byte for byte what their definitions over
every interval and change point answer.  Those definitions are kept in
tests/oracle/queries/ (the queries as they were, with window functions
over the views hta_idle_interval and hta_queue_length, which
test_oracle.py checks against the SQL over the raw rows); they run here
as user queries (PROFAN_QUERIES) beside the built-in ones, on several
runs in one database, after the
threshold is edited, after `profan rebuild`, and on a trace whose launch
calls start after their kernels (queue lengths below 0).
"""
import json
import os
import sqlite3

from common import ProfanTest, ROOT, shared

ORACLE = os.path.join(ROOT, "tests", "oracle", "queries")
QUERIES = ("idle-breakdown", "queue-length")
TRACES = ("hta-alexnet-a100.json.gz", "hta-diff-test-v100-rank1.json.gz",
          "hta-event-sync-multistream.json.gz", "hta-mi250-rocm62.json.gz",
          "hta-triton.json.gz", "kineto-resnet50-2021.pt.trace.json.gz")


def skewed_trace(path):
    """Two streams of launches and kernels; on stream 7 every third
    launch call starts after its kernel (a host clock ahead of the
    GPU's), so the queue goes below 0; durations vary so the gaps do."""
    ev = []
    t = 1000
    for i in range(60):
        stream = 7 if i % 2 else 13
        lt = t + (40 if stream == 7 and i % 3 == 0 else 0)
        ev.append({"ph": "X", "cat": "cuda_runtime",
                   "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": lt, "dur": 5, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k%d" % (i % 4),
                   "pid": 0, "tid": stream, "ts": t + 20,
                   "dur": 3 + (i * 7) % 11,
                   "args": {"correlation": i + 1, "device": 0,
                            "stream": stream}})
        t += 17 + (i * 5) % 13
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)


class StoredStatisticsTest(ProfanTest):

    def setUp(self):
        super().setUp()
        self.uq = os.path.join(self.tmp.name, "queries")
        os.mkdir(self.uq)
        for q in QUERIES:
            with open(os.path.join(ORACLE, q + ".sql")) as f:
                text = f.read()
            with open(os.path.join(self.uq, "def-" + q + ".sql"), "w") as f:
                f.write(text.replace("-- name: " + q, "-- name: def-" + q))

    def compare(self, runs, label):
        """Each query's CSV against its definition's, every run, all ranks
        and its last rank; returns the rows compared."""
        n = 0
        for run in runs:
            rank = self.sql("SELECT max(rank) AS r FROM hta_stream"
                            " WHERE run_id = " + run)[0]["r"]
            for q in QUERIES:
                for extra in ((), ("--param", "rank=" + rank)):
                    args = ("--format", "csv", "query")
                    got = self.profan(*args, q, "--run", run, *extra)
                    want = self.profan(*args, "def-" + q, "--run", run,
                                       *extra, env={"PROFAN_QUERIES": self.uq})
                    self.assertEqual(got.rc, 0, got.err)
                    self.assertEqual(want.rc, 0, want.err)
                    self.assertEqual(got.out, want.out, (label, run, q, extra))
                    n += got.out.count("\n") - 1
        return n

    def test_queries_equal_their_definitions(self):
        skew = os.path.join(self.tmp.name, "skewed.json")
        skewed_trace(skew)
        for path in TRACES:
            self.ingest_ok(shared("traces", path))
        self.ingest_ok(skew)
        runs = [str(i) for i in range(1, len(TRACES) + 2)]
        low = self.sql("SELECT min(queue_length) AS m FROM hta_queue_length"
                       " WHERE run_id = %d" % len(runs))
        self.assertLess(int(low[0]["m"]), 0)        # the skewed run
        self.assertGreater(self.compare(runs, "ingested"), 50)
        for value in ("0", "500000", "1e18", None):   # a user's edits
            con = sqlite3.connect(self.db)
            with con:
                if value is None:
                    con.execute("DELETE FROM hta_setting"
                                " WHERE name = 'kernel_wait_ns'")
                else:
                    con.execute("UPDATE hta_setting SET value = %s"
                                " WHERE name = 'kernel_wait_ns'" % value)
            con.close()
            self.compare(runs, "kernel_wait_ns %s" % value)
        r = self.profan("rebuild")
        self.assertEqual(r.rc, 0, r.err)
        self.compare(runs, "rebuilt")
        r = self.profan("rm", "2")
        self.assertEqual(r.rc, 0, r.err)
        for t in ("hta_stream", "hta_idle_interval", "hta_queue_length"):
            self.assertEqual(self.sql("SELECT count(*) AS n FROM %s"
                                      " WHERE run_id = 2" % t)[0]["n"], "0")
        self.compare([x for x in runs if x != "2"], "after rm")

    def test_a_run_derived_again_keeps_one_copy(self):
        """Deriving a run again (rebuild) replaces its streams: the counts
        stay those of one pass, and each stream's arrays hold as many
        elements as its idle_n and queue_n say (schema 111)."""
        path = shared("traces", "hta-alexnet-a100.json.gz")
        self.ingest_ok(path)
        views = ("hta_idle_interval", "hta_queue_length", "hta_stream")
        before = {t: self.sql("SELECT count(*) AS n FROM " + t)[0]["n"]
                  for t in views}
        r = self.profan("rebuild")
        self.assertEqual(r.rc, 0, r.err)
        after = {t: self.sql("SELECT count(*) AS n FROM " + t)[0]["n"]
                 for t in before}
        self.assertEqual(before, after)
        self.assertGreater(int(before["hta_idle_interval"]), 0)
        self.assertGreater(int(before["hta_queue_length"]), 0)
        bad = self.sql(
            "SELECT count(*) AS n FROM hta_stream"
            " WHERE json_array_length(idle_gaps) <> idle_n"
            " OR json_array_length(queue_points) <> queue_n")
        self.assertEqual(bad[0]["n"], "0")

if __name__ == "__main__":
    import unittest
    unittest.main()
