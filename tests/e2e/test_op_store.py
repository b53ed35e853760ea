"""test_op_store.py — the operator model's ingest pass computes op_sig,
op_gpu_time and the launch and memcpy arms of op_run_metric from the rows
the writer kept in memory (src/trace/op_store.c, src/analysis/derive_op.c); the views of
schema 022/027/028 stay their definition.  On every trace fixture (one
file a run, and the 8 dlrm ranks in one run) the stored rows equal the
views' rows (op_target set to the run, EXCEPT both ways), and the
in-memory path was the one taken; with PROFAN_OP_SQL=1 (the views) the
stored metrics are the same.
"""
import glob
import os
import sqlite3

from common import ProfanTest, run, shared

# stored table, view, the view's columns (sig_id compared through op_sig:
# its ids depend on the order signatures were inserted)
GPU_COLS = ("op_id, run_id, rank, name_id, device, n_gpu, union_ns, sum_ns,"
            " host_copies, tf32")
SIG = ("(SELECT name_id || ',' || dims_id || ',' || types_id || ',' ||"
       " conc_id FROM op_sig g WHERE g.id = x.sig_id)")


def diff(con, a, b):
    """Rows of query a not in b and of b not in a."""
    return (con.execute(a + " EXCEPT " + b).fetchall(),
            con.execute(b + " EXCEPT " + a).fetchall())


def fixtures():
    """The trace fixtures, each ingested as one run."""
    out = []
    for p in sorted(glob.glob(os.path.join(shared("traces"), "*"))):
        if p.endswith(".json") or p.endswith(".json.gz"):
            out.append(p)
    return out


class OpStoreTest(ProfanTest):

    def check_run(self, db, rid, label):
        """The stored rows of run rid equal the views' rows."""
        con = sqlite3.connect(db)
        con.execute("BEGIN")
        con.execute("DELETE FROM op_target")
        con.execute("INSERT INTO op_target VALUES(?)", (rid,))
        stored = ("SELECT %s, %s FROM op_gpu_time x WHERE run_id = %d"
                  % (GPU_COLS, SIG, rid))
        view = "SELECT %s, %s FROM op_call_time_calc x" % (GPU_COLS, SIG)
        self.assertEqual(diff(con, stored, view), ([], []), label)
        n = con.execute("SELECT count(*) FROM op_gpu_time WHERE run_id = ?"
                        " AND sig_id IS NOT NULL", (rid,)).fetchone()[0]
        self.assertEqual(n, con.execute("SELECT count(*) FROM op_call_time_calc"
                                        ).fetchone()[0], label)
        self.assertEqual(con.execute(
            "SELECT * FROM op_sig_calc EXCEPT"
            " SELECT name_id, dims_id, types_id, conc_id FROM op_sig"
            ).fetchall(), [], label)
        self.assertEqual(con.execute(
            "SELECT count(*) FROM op_sig WHERE modeled = 0").fetchone(),
            (0,), label)
        stored = ("SELECT run_id, metric, value FROM op_run_metric"
                  " WHERE run_id = %d" % rid)
        self.assertEqual(diff(con, stored, "SELECT * FROM op_metric_calc"),
                         ([], []), label)
        metrics = con.execute(stored).fetchall()
        con.execute("ROLLBACK")
        con.close()
        return metrics

    def ingest_checked(self, paths, label):
        """Ingest paths as one run in a new database both ways; check
        both against the views and each other.  Returns whether the
        in-memory path ran."""
        out = []
        for env in ({"PROFAN_TIMING": "1"},
                    {"PROFAN_TIMING": "1", "PROFAN_OP_SQL": "1"}):
            db = os.path.join(self.tmp.name, "%d.db" % len(out))
            r = run("ingest", *paths, db=db, env=env)
            self.assertEqual(r.rc, 0, r.err)
            out.append((self.check_run(db, 1, label),
                        "op calls" in r.err))
            os.remove(db)
        # the roofline sums may add the calls in another order (op_sig
        # ids differ): equal to 12 significant digits
        a, b = ([(r, m, v if v is None else float("%.12g" % v))
                 for r, m, v in sorted(o[0])] for o in out)
        self.assertEqual(a, b, label)
        self.assertFalse(out[1][1], label)
        return out[0][1]

    def test_every_fixture(self):
        taken = []
        for p in fixtures():
            if self.ingest_checked([p], os.path.basename(p)):
                taken.append(os.path.basename(p))
        # the in-memory path runs for the traces linked in-stream
        self.assertIn("hta-diff-control-a100-rank3.json.gz", taken)
        self.assertGreaterEqual(len(taken), len(fixtures()) // 2, taken)

    def test_dlrm_ranks_one_run(self):
        files = sorted(glob.glob(os.path.join(shared("runs", "dlrm-8rank"),
                                              "*.json.gz")))
        self.assertGreater(len(files), 1)
        self.assertTrue(self.ingest_checked(files, "dlrm-8rank"))

    def test_store_gave_up(self):
        """Spans past their cap: the memcpy arm from its view, the rest
        from the store; the sweeps' store off: everything from the
        views; the rows are the same."""
        p = shared("traces", "hta-diff-control-a100-rank3.json.gz")
        for env in ({"PROFAN_SPANS_KB": "64"}, {"PROFAN_SWEEP": "db"}):
            r = self.profan("ingest", p, env=env)
            self.assertEqual(r.rc, 0, r.err)
            con = sqlite3.connect(self.db)
            rid = con.execute("SELECT max(id) FROM run").fetchone()[0]
            con.close()
            self.check_run(self.db, rid, str(env))
