"""test_corpus.py — the corpus invariant test (issue 32): every trace in
../shared/fixtures and fixtures/ ingested, one run each, and on every run
every named query runs and no number is impossible (see corpus.py for
the invariants and how each is checked).  Each failure names the trace.

One database for the whole corpus (ingest once, ~20 s); the export round
trip exports each run's ranks one by one into its own fresh database.
"""
import os
import unittest

import corpus as C
from common import ProfanTest, ROOT, SHARED, run


class CorpusInvariantTest(ProfanTest):

    @classmethod
    def setUpClass(cls):
        import tempfile
        if not os.path.isdir(SHARED):
            if os.environ.get("CI") == "true":
                raise AssertionError("fixtures missing under CI: " + SHARED)
            raise unittest.SkipTest("fixture not found: " + SHARED)
        cls.dir = tempfile.TemporaryDirectory()
        cls.cdb = os.path.join(cls.dir.name, "corpus.db")
        cls.runs = {}
        for p in C.corpus():
            r = run("ingest", p, db=cls.cdb)
            assert r.rc == 0, "%s: %s" % (p, r.err)
            rid = int(C.sql_rows(cls.cdb, "SELECT max(id) AS i FROM run")[0]["i"])
            cls.runs[rid] = (os.path.relpath(p, ROOT) if p.startswith(ROOT)
                             else os.path.relpath(p, os.path.dirname(SHARED)))
        cls.queries = C.queries()

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_corpus_is_complete(self):
        names = set(self.runs.values())
        self.assertGreaterEqual(len(names), 30)
        for must in ("fixtures/traces/hta-diff-control-a100-rank3.json.gz",
                     "fixtures/runs/dlrm-8rank"):
            self.assertIn(must, names)

    def test_corpus_every_query_runs_and_no_impossible_number(self):
        self.maxDiff = None
        bad = []
        for rid, name in sorted(self.runs.items()):
            for q in self.queries:
                r, rows = C.run_query(self.cdb, q, rid)
                if r.rc != 0 and "no rows for run" not in r.err:
                    bad.append("%s: %s exit %d: %s" % (name, q, r.rc,
                                                      r.err.strip()[:200]))
                bad += ["%s: %s" % (name, b) for b in C.check_rows(q, rows)]
        self.assertEqual(bad, [])

    def test_corpus_union_within_span(self):
        bad = []
        for rid, name in sorted(self.runs.items()):
            for r in C.sql_rows(self.cdb, "SELECT * FROM hta_temporal WHERE"
                                " run_id = %d" % rid):
                span, idle = int(r["span_ns"]), int(r["idle_ns"])
                comp, non = int(r["compute_ns"]), int(r["non_compute_ns"])
                if min(span, idle, comp, non) < 0 \
                        or idle + comp + non != span:
                    bad.append("%s: temporal %s" % (name, r))
            # the union of the GPU ops of a device never exceeds their span
            spans = {(r["rank"], r["device"]): int(r["s"]) for r in C.sql_rows(
                self.cdb, "SELECT rank, device, max(ts + dur) - min(ts) AS s"
                " FROM hta_gpu_op WHERE run_id = %d GROUP BY 1, 2" % rid)}
            for r in C.sql_rows(self.cdb, "SELECT rank, device, sum(ns) AS"
                                " busy FROM hta_overlap_piece WHERE run_id = %d"
                                " AND compute + comm + memory > 0"
                                " GROUP BY 1, 2" % rid):
                span = spans[(r["rank"], r["device"])]
                if int(r["busy"]) > span:
                    bad.append("%s: union %s > span %d" % (name, r, span))
        self.assertEqual(bad, [])

    def test_corpus_stream_idle_plus_busy_is_span(self):
        bad = []
        for rid, name in sorted(self.runs.items()):
            for k, s in C.stream_spans(self.cdb, rid).items():
                if s["busy"] + s["idle"] != s["hi"] - s["lo"]:
                    bad.append("%s: stream %s busy %d + idle %d != span %d"
                               % (name, k, s["busy"], s["idle"],
                                  s["hi"] - s["lo"]))
        self.assertEqual(bad, [])

    def test_corpus_every_launched_gpu_op_linked(self):
        bad = []
        for rid, name in sorted(self.runs.items()):
            n = C.unlinked_gpu_ops(self.cdb, rid)
            if n:
                bad.append("%s: %d GPU ops with a launch call not linked"
                           % (name, n))
        self.assertEqual(bad, [])

    def test_corpus_export_ingest_round_trip(self):
        """Each rank of each run exported whole, ingested again: the same
        kernels (count, time), the same linked kernels, the same rank.  A
        trace whose export loses launch links (issue 32 point 6, the
        in-stream linker's event order: branch p29path) fails here."""
        self.maxDiff = None
        bad = []
        for rid, name in sorted(self.runs.items()):
            want = C.kernel_summary(self.cdb, rid)
            ranks = [r["rank"] for r in C.sql_rows(
                self.cdb, "SELECT DISTINCT rank FROM run_file WHERE run_id = %d"
                " AND rank IS NOT NULL ORDER BY 1" % rid)]
            for rank in ranks:
                out = os.path.join(self.tmp.name, "x.json")
                db2 = os.path.join(self.tmp.name, "rt%d_%s.db" % (rid, rank))
                r = run("export-trace", str(rid), "--rank", rank, "-o", out,
                        db=self.cdb)
                if r.rc != 0:
                    if "nothing to export" not in r.err:
                        bad.append("%s rank %s: export: %s" % (name, rank,
                                                               r.err.strip()))
                    continue
                r = run("ingest", out, db=db2)
                if r.rc != 0:
                    bad.append("%s rank %s: ingest: %s" % (name, rank,
                                                           r.err.strip()))
                    continue
                got = C.kernel_summary(db2, 1)
                exp = {rank: want[rank]} if rank in want else {}
                if got != exp:
                    bad.append("%s rank %s: (kernels, ns, linked) %s != %s"
                               % (name, rank, got, exp))
        self.assertEqual(bad, [])
