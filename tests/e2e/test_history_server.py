"""test_history_server.py — a team's history on PostgreSQL (issue 36):
`profan push` and the --history URL of check, trend, runs and diff,
against a real throwaway server (pgserver.py: initdb in a temporary
directory, a Unix socket, stopped at the end), never a mock.

The runs replay a real trace (gate_scenarios.Template over the
hta-diff-control A100 trace, with its own warm-up and variation) with a
known slowdown each, beside unrelated real runs (dlrm-8rank, alexnet).
The oracles: the server's rows counted with psql against the local
`merge --summaries-only` history's counted with Python's sqlite3; the
verdicts of the history on the server equal, byte for byte, the ones of
the local history, and the 20 % slower run is a regression there.
"""
import concurrent.futures
import hashlib
import os
import random
import shutil
import sqlite3
import subprocess
import unittest

import common
import gate_scenarios as gs
import pgserver
from common import PROFAN, ProfanTest, shared

SERVER = None
N_DB = [0]


def setUpModule():
    global SERVER
    if pgserver.bindir() is None:
        if os.environ.get("CI") == "true":
            raise AssertionError("PostgreSQL binaries (initdb, pg_ctl) are"
                                 " missing under CI: run scripts/setup.sh")
        common.env_unable("PostgreSQL binaries (initdb, pg_ctl) not"
                          " installed (scripts/setup.sh installs postgresql)")
    SERVER = pgserver.PgServer().start()


def tearDownModule():
    if SERVER is not None:
        SERVER.cleanup()


def profan(*args, db=None, env=None, cwd=None):
    cmd = [PROFAN] + (["--db", db] if db else []) + [str(a) for a in args]
    e = dict(os.environ)
    e.pop("PROFAN_DB", None)
    e.update(env or {})
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=common.TIMEOUT,
                       env=e, stdin=subprocess.DEVNULL, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class ServerTest(ProfanTest):
    """Each test gets a database of its own on the module's server."""

    def setUp(self):
        super().setUp()
        N_DB[0] += 1
        self.dbname = "t%d" % N_DB[0]
        SERVER.psql("CREATE DATABASE %s" % self.dbname)
        self.url = SERVER.url(self.dbname)

    def server_rows(self, table):
        return int(SERVER.psql("SELECT count(*) FROM profan.%s" % table,
                               self.dbname)[0][0])


class Family:
    """A local database of replayed runs (made once per module): base and
    six history runs without slowdown, runs 3 %, 10 %, 20 % slower, and
    two unrelated real runs; baseline main = base."""
    path = None
    slowdowns = (3, 10, 20)

    @classmethod
    def get(cls, tmp):
        if cls.path is None:
            cls.dir = os.path.join(tmp, "family")
            os.makedirs(cls.dir)
            cls.path = os.path.join(cls.dir, "runs.db")
            tpl = gs.Template(shared("traces",
                                      "hta-diff-control-a100-rank3.json.gz"))
            rnd = random.Random(36)
            gs.ingest(cls.path, shared("traces", "hta-alexnet-a100.json.gz"),
                      "alexnet")
            names = ["base"] + ["h%d" % i for i in range(6)]
            for n in names:
                p = os.path.join(cls.dir, n + ".json")
                tpl.write(p, gs.draws(rnd, tpl.steps, 0.02))
                gs.ingest(cls.path, p, n)
            gs.ingest(cls.path, shared("runs", "dlrm-8rank"), "dlrm")
            for s in cls.slowdowns:
                p = os.path.join(cls.dir, "run%d.json" % s)
                tpl.write(p, gs.draws(rnd, tpl.steps, 0.02), "uniform",
                          s / 100.0)
                gs.ingest(cls.path, p, "run%d" % s)
            rc, out, err = profan("baseline", "set", "main", "base",
                                  db=cls.path)
            assert rc == 0, err
        return cls.path


FAMILY_TMP = None


def family():
    global FAMILY_TMP
    if FAMILY_TMP is None:
        FAMILY_TMP = __import__("tempfile").mkdtemp(prefix="profan-pg36-")
    return Family.get(FAMILY_TMP)


def local_counts(path):
    """Rows of each summary table of a local history (Python's sqlite3)."""
    con = sqlite3.connect(path)
    tabs = [r[0] for r in con.execute(
        "SELECT r.name FROM table_role r WHERE r.summary = 1 AND (r.name ="
        " 'run' OR EXISTS (SELECT 1 FROM pragma_table_info(r.name) c WHERE"
        " c.name = 'run_id'))")]
    out = {t: con.execute('SELECT count(*) FROM "%s"' % t).fetchone()[0]
           for t in tabs}
    con.close()
    return out


class Push(ServerTest):

    def test_push_holds_what_a_local_history_holds(self):
        src = family()
        hist = os.path.join(self.tmp.name, "hist.db")
        rc, out, err = profan("merge", "--summaries-only", "--quiet",
                              "--into", hist, src)
        self.assertEqual(rc, 0, err)
        rc, out, err = profan("push", *range(1, 13), "--to", self.url,
                              db=src)
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"^pushed 12 runs \(\d+ rows\) to t\d+ on"
                         r" \S+:5432 in \d+ ms\n")
        want = local_counts(hist)
        self.assertGreater(want["step"], 0)
        self.assertGreater(want["core_run_metric"], 0)
        for t, n in want.items():
            self.assertEqual(self.server_rows(t), n, t)
        # ids, names and content hashes as the local history's
        con = sqlite3.connect(hist)
        local = con.execute("SELECT id, name, content_hash FROM run ORDER"
                            " BY id").fetchall()
        con.close()
        server = SERVER.psql("SELECT id, name, content_hash FROM profan.run"
                             " ORDER BY id", self.dbname)
        self.assertEqual([(str(a), b, c) for a, b, c in local],
                         [tuple(r) for r in server])
        # a second push changes nothing and says so
        before = SERVER.psql("SELECT count(*) FROM profan.step",
                             self.dbname)
        rc, out, err = profan("push", "run20", "--to", self.url, db=src)
        self.assertEqual(rc, 0, err)
        self.assertIn("pushed 0 runs (0 rows)", out)
        self.assertIn("1 already there", out)
        self.assertEqual(err, "profan: run run20 is already on the history"
                         " server as run 12 (same content); skipped\n")
        self.assertEqual(SERVER.psql("SELECT count(*) FROM profan.step",
                                     self.dbname), before)

    def test_same_answers_as_a_local_history(self):
        """check / trend / runs / diff --by metrics over the server equal
        those over the local --summaries-only history, byte for byte; the
        20 % slower run is a regression, the unrelated run not comparable."""
        src = family()
        hist = os.path.join(self.tmp.name, "hist.db")
        rc, out, err = profan("merge", "--summaries-only", "--quiet",
                              "--into", hist, src)
        self.assertEqual(rc, 0, err)
        rc, out, err = profan("push", *range(1, 13), "--to", self.url,
                              db=src)
        self.assertEqual(rc, 0, err)
        nobody = os.path.join(self.tmp.name, "profan.db")
        cases = []
        for run in ("h5", "run3", "run10", "run20", "dlrm", "alexnet"):
            for extra in ([], ["--metric", "gpu_ms", "--metric",
                               "step_time_median_ms"],
                          ["--format", "json", "--last", "4"]):
                cases.append(["check", "--baseline", "main", "--run", run]
                             + extra)
        cases += [["trend", "step_time_median_ms"],
                  ["trend", "gpu_ms", "--last", "5"], ["runs"],
                  ["diff", "base", "run20", "--by", "metrics"],
                  ["--format", "json", "runs"],
                  ["check", "--baseline", "main", "--metric", "nosuch"]]
        verdicts = {}
        for args in cases:
            want = profan(*args, db=hist)
            got = profan(*args, "--history", self.url, db=hist)
            self.assertEqual(got, want, args)
            if args[0] == "check" and len(args) == 5:
                verdicts[args[4]] = want[0]
            # the run under test found on the server without a local db
            # (no --db, no ./profan.db)
            if args[0] == "check":
                got = profan(*args, "--history", self.url, cwd=self.tmp.name)
                self.assertEqual(got[0], want[0], args)
        self.assertEqual(verdicts["run20"], 1)      # a regression
        self.assertEqual(verdicts["h5"], 0)         # no slowdown: passes
        self.assertEqual(verdicts["dlrm"], 4)       # not comparable
        self.assertFalse(os.path.exists(nobody))

    def test_local_run_checked_before_its_push(self):
        """A CI job checks its own run, not yet pushed, against the team's
        history: the same verdict as after merging it into a local one."""
        src = family()
        rc, out, err = profan("push", *range(1, 12), "--to", self.url,
                              db=src)
        self.assertEqual(rc, 0, err)
        hist = os.path.join(self.tmp.name, "hist.db")
        rc, out, err = profan("merge", "--summaries-only", "--quiet",
                              "--into", hist, src)
        self.assertEqual(rc, 0, err)
        args = ["check", "--baseline", "main", "--run", "run20"]
        want = profan(*args, db=hist)
        got = profan(*args, "--history", self.url, db=src)
        self.assertEqual(got, want)
        self.assertEqual(want[0], 1)
        self.assertEqual(self.server_rows("run"), 11)   # checking wrote nothing


class Concurrent(ServerTest):

    def test_sixteen_pushes_at_once(self):
        """16 processes push 3 runs each at once into a fresh server
        database (the first uses race for the schema too), one run common
        to all of them; 2 more processes list the runs over and over
        meanwhile.  33 runs stored, none twice, none lost, every row; every
        reader answers."""
        from test_history import write_trace
        n = 16
        src = os.path.join(self.tmp.name, "many.db")
        for i in range(2 * n):
            p = os.path.join(self.tmp.name, "s%d.json" % i)
            ms = [10.0 * (1 + 0.01 * ((i * 7 + k) % 3 - 1)) for k in range(8)]
            write_trace(p, ms, tag="pg36-c%d" % i)
            gs.ingest(src, p, "c%d" % i)
        write_trace(p, [10.0] * 8, tag="pg36-common")
        gs.ingest(src, p, "common")
        jobs = [["push", "c%d" % (2 * i), "c%d" % (2 * i + 1), "common",
                 "--to", self.url] for i in range(n)]

        def reader(pushes):
            out = []
            while not all(f.done() for f in pushes):
                out.append(profan("runs", "--history", self.url, db=src))
            return out
        with concurrent.futures.ThreadPoolExecutor(n + 2) as ex:
            pushes = [ex.submit(profan, *j, db=src) for j in jobs]
            readers = [ex.submit(reader, pushes) for _ in range(2)]
            res = [f.result() for f in pushes]
            reads = [r for f in readers for r in f.result()]
        for rc, out, err in res:
            self.assertEqual(rc, 0, err)
        names = SERVER.psql("SELECT name, count(*) FROM profan.run GROUP BY"
                            " name ORDER BY name", self.dbname)
        want_names = ["c%d" % i for i in range(2 * n)] + ["common"]
        self.assertEqual(sorted(m for m, c in names), sorted(want_names))
        self.assertTrue(all(c == "1" for m, c in names))
        ids = [int(r[0]) for r in SERVER.psql("SELECT id FROM profan.run",
                                              self.dbname)]
        self.assertEqual(sorted(ids), list(range(1, 2 * n + 2)))
        self.assertEqual(sum("already there" in out for rc, out, err in res),
                         n - 1)
        self.assertEqual(self.server_rows("step"),
                         local_counts_of(src, want_names))
        self.assertGreater(len(reads), 0)
        for rc, out, err in reads:
            self.assertEqual(rc, 0, err)


def local_counts_of(path, names):
    con = sqlite3.connect(path)
    n = con.execute("SELECT count(*) FROM step WHERE run_id IN (SELECT id"
                    " FROM run WHERE name IN (%s))"
                    % ",".join("?" * len(names)), names).fetchone()[0]
    con.close()
    return n


class Faults(ServerTest):

    def one_line(self, r, rc=7):
        self.assertEqual(r[0], rc, r)
        self.assertEqual(r[1], "")
        self.assertEqual(r[2].count("\n"), 1, r[2])
        self.assertTrue(r[2].startswith("profan: "), r[2])

    def test_server_unreachable_refused_or_down(self):
        src = family()
        before = sha(src)
        # no server at that socket; a password never printed
        gone = "host=%s/nosuch dbname=x user=u password=s3cret-pw" % (
            self.tmp.name)
        for cmd in (["push", "--to", gone],
                    ["check", "--baseline", "main", "--history", gone],
                    ["trend", "gpu_ms", "--history", gone],
                    ["runs", "--history", gone]):
            r = profan(*cmd, db=src)
            self.one_line(r)
            self.assertRegex(r[2], r"^profan: history server x on \S+nosuch"
                             r":5432: connection to server on socket")
            self.assertNotIn("s3cret-pw", r[1] + r[2])
        r = profan("push", "--to", "postgresql://u:s3cret-pw@/x?host=%s"
                   "/nosuch" % self.tmp.name, db=src)
        self.one_line(r)
        self.assertNotIn("s3cret-pw", r[2])
        # a role the server does not know
        r = profan("push", "--to", SERVER.url(self.dbname, user="nobody"),
                   db=src)
        self.one_line(r)
        self.assertIn('role "nobody" does not exist', r[2])
        # not a connection string: a usage error, its text not repeated
        r = profan("push", "--to", "host='s3cret-pw", db=src)
        self.one_line(r, 2)
        self.assertNotIn("s3cret-pw", r[2])
        self.assertEqual(sha(src), before)
        # the server stopped, then started again: a push fails, then works
        rc, out, err = profan("push", "base", "--to", self.url, db=src)
        self.assertEqual(rc, 0, err)
        SERVER.stop()
        try:
            r = profan("push", "h0", "--to", self.url, db=src)
            self.one_line(r)
            r = profan("check", "--baseline", "main", "--history", self.url,
                       db=src)
            self.one_line(r)
        finally:
            SERVER.pg_ctl_start()
        self.assertEqual(sha(src), before)
        rc, out, err = profan("push", "h0", "--to", self.url, db=src)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.server_rows("run"), 2)

    def test_insert_select_role_and_passwords(self):
        """A role with only USAGE on the schema and INSERT/SELECT on its
        tables (docs/history-server.md) pushes and checks; a wrong
        password is one line, exit 7, the password in no output; the
        right one from PGPASSWORD works."""
        src = family()
        rc, out, err = profan("push", "base", "--to", self.url, db=src)
        self.assertEqual(rc, 0, err)        # the owner makes the schema
        SERVER.psql("CREATE ROLE ci_%s LOGIN PASSWORD 'right-pw-7';"
                    " GRANT USAGE ON SCHEMA profan TO ci_%s; GRANT SELECT,"
                    " INSERT ON ALL TABLES IN SCHEMA profan TO ci_%s"
                    % ((self.dbname,) * 3), self.dbname)
        hba = os.path.join(SERVER.data, "pg_hba.conf")
        with open(hba) as f:
            old = f.read()
        with open(hba, "w") as f:
            f.write("local all ci_%s scram-sha-256\n" % self.dbname + old)
        SERVER.psql("SELECT pg_reload_conf()")
        ci = SERVER.url(self.dbname, user="ci_" + self.dbname)
        try:
            r = profan("push", "h0", "--to", ci, db=src,
                       env={"PGPASSWORD": "wrong-pw-9"})
            self.one_line(r)
            self.assertIn('password authentication failed for user'
                          ' "ci_%s"' % self.dbname, r[2])
            self.assertNotIn("wrong-pw-9", r[2])
            r = profan("push", "h0", "h1", "--to", ci + " password=wrong-pw-9",
                       db=src)
            self.one_line(r)
            self.assertNotIn("wrong-pw-9", r[2])
            self.assertEqual(self.server_rows("run"), 1)
            env = {"PGPASSWORD": "right-pw-7"}
            rc, out, err = profan("push", "h0", "h1", "--to", ci, db=src,
                                  env=env)
            self.assertEqual(rc, 0, err)
            self.assertNotIn("right-pw-7", out + err)
            self.assertEqual(self.server_rows("run"), 3)
            rc, out, err = profan("check", "--baseline", "main", "--run",
                                  "h1", "--history", ci, db=src, env=env)
            self.assertEqual(rc, 0, err)
            # the role may not change what is there
            with self.assertRaises(AssertionError):
                SERVER.psql("SET ROLE ci_%s; DELETE FROM profan.run"
                            % self.dbname, self.dbname)
        finally:
            with open(hba, "w") as f:
                f.write(old)
            SERVER.psql("SELECT pg_reload_conf()")

    def test_server_crashed_mid_push(self):
        """The server's processes ended while a push of 10 runs is under
        way (4 of them sent, the 5th waiting): exit 7 in one line, none
        of them on the server after its crash recovery, the local
        database unchanged; pushed again, they are all there."""
        src = family()
        before = sha(src)
        rc, out, err = profan("push", "base", "--to", self.url, db=src)
        self.assertEqual(rc, 0, err)
        # another session inserts run 7's content, uncommitted: the push
        # stores runs 3-6, then waits at run 7 (the unique content hash)
        con = sqlite3.connect(src)
        h7 = con.execute("SELECT content_hash FROM run WHERE id = 7")\
            .fetchone()[0]
        con.close()
        blocker = subprocess.Popen(
            [os.path.join(SERVER.bin, "psql"), "-X", "-q", "-h", SERVER.sock,
             "-U", pgserver.SUPERUSER, "-d", self.dbname],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, text=True)
        blocker.stdin.write("BEGIN; INSERT INTO profan.run(id, name,"
                            " created_at, content_hash, tool_version) VALUES"
                            " (999, 'blocker', '', '%s', '');\n" % h7)
        blocker.stdin.flush()
        p = subprocess.Popen([PROFAN, "--db", src, "push"]
                             + [str(i) for i in range(3, 13)]
                             + ["--to", self.url], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        seen = False
        for _ in range(1000):
            rows = SERVER.psql("SELECT count(*) FROM pg_stat_activity WHERE"
                               " application_name = 'profan' AND"
                               " wait_event_type = 'Lock'", self.dbname)
            if rows[0][0] != "0":
                seen = True
                break
        self.assertTrue(seen, "the push never waited at run 7")
        SERVER.crash()
        try:
            out, err = p.communicate(timeout=common.TIMEOUT)
            blocker.communicate(timeout=common.TIMEOUT)
        finally:
            SERVER.pg_ctl_start()
        self.one_line((p.returncode, out, err))
        self.assertTrue(err.endswith("; nothing pushed\n"), err)
        self.assertEqual(self.server_rows("run"), 1, (err, SERVER.psql(
            "SELECT id, name, pushed_at FROM profan.run", self.dbname)))
        self.assertEqual(int(SERVER.psql(
            "SELECT count(*) FROM profan.step WHERE run_id <> 1",
            self.dbname)[0][0]), 0)
        self.assertEqual(sha(src), before)
        rc, out, err = profan("push", *range(1, 13), "--to", self.url,
                              db=src)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.server_rows("run"), 12)

    def test_newer_server_schema_refused(self):
        src = family()
        rc, out, err = profan("push", "base", "--to", self.url, db=src)
        self.assertEqual(rc, 0, err)
        SERVER.psql("INSERT INTO profan.schema_version(version, name)"
                    " VALUES (999, '999-future.sql')", self.dbname)
        r = profan("push", "h0", "--to", self.url, db=src)
        self.one_line(r)
        self.assertRegex(r[2], r"its profan schema is version 999, newer"
                         r" than this profan's 1: upgrade profan\n$")
        self.assertEqual(self.server_rows("run"), 1)

    def test_failure_mid_push_leaves_nothing(self):
        """A push whose last run fails on the server (a trigger refuses
        it) stores none of its runs: one transaction."""
        src = family()
        SERVER.psql("CREATE SCHEMA IF NOT EXISTS profan", self.dbname)
        rc, out, err = profan("push", "base", "--to", self.url, db=src)
        self.assertEqual(rc, 0, err)
        SERVER.psql("CREATE FUNCTION profan.no() RETURNS trigger LANGUAGE"
                    " plpgsql AS $$BEGIN IF NEW.name = 'h3' THEN RAISE"
                    " EXCEPTION 'refused by test'; END IF; RETURN NEW;"
                    " END$$; CREATE TRIGGER no BEFORE INSERT ON profan.run"
                    " FOR EACH ROW EXECUTE FUNCTION profan.no()",
                    self.dbname)
        r = profan("push", "h0", "h1", "h2", "h3", "--to", self.url, db=src)
        self.one_line(r)
        self.assertIn("refused by test", r[2])
        self.assertTrue(r[2].endswith("; nothing pushed\n"), r[2])
        self.assertEqual(self.server_rows("run"), 1)
        self.assertEqual(int(SERVER.psql(
            "SELECT count(*) FROM profan.step WHERE run_id <> 1",
            self.dbname)[0][0]), 0)


def tearDownModuleFamily():
    if FAMILY_TMP:
        shutil.rmtree(FAMILY_TMP, ignore_errors=True)


_td = tearDownModule


def tearDownModule():  # noqa: F811
    _td()
    tearDownModuleFamily()


if __name__ == "__main__":
    unittest.main()
