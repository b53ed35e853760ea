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
import hashlib
import os
import random
import shutil
import socket
import sqlite3
import subprocess
import unittest

import common
import gate_scenarios as gs
import pg_concurrency
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

    def test_server_schema_has_every_summary_column(self):
        """The hand-written server DDL (schema/pg/) against the table
        catalogue: every table merge --summaries-only copies
        (statements/history-columns.sql over table_role) is on the
        server with every column, of the type its declared SQLite type
        maps to, and nothing else but the server's own columns (ord,
        pushed_at, pushed_by).  A summary column added to the SQLite
        schema without its schema/pg migration fails here, by name."""
        src = family()
        rc, out, err = profan("runs", "--history", self.url, db=src)
        self.assertEqual(rc, 0, err)            # the schema, migrated
        con = sqlite3.connect(src)
        with open(os.path.join(common.ROOT, "statements",
                               "history-columns.sql")) as f:
            rows = con.execute(f.read()).fetchall()
        con.close()

        def pg_type(decl):
            for part, t in (("INT", "bigint"), ("CHAR", "text"),
                            ("CLOB", "text"), ("TEXT", "text"),
                            ("BLOB", "bytea"), ("REAL", "double precision"),
                            ("FLOA", "double precision"),
                            ("DOUB", "double precision")):
                if part in decl:
                    return t
            return "numeric"
        want, by_id = {}, {}
        for tbl, col, decl, bid, _s in rows:
            want.setdefault(tbl, {})[col] = pg_type(decl)
            by_id[tbl] = bid
        want["string"] = {"id": "bigint", "text": "text"}
        by_id["string"] = 1
        self.assertIn("step", want)
        self.assertIn("core_run_metric", want)
        have = {}
        for tbl, col, typ in SERVER.psql(
                "SELECT table_name, column_name, data_type FROM"
                " information_schema.columns WHERE table_schema = 'profan'",
                self.dbname):
            have.setdefault(tbl, {})[col] = typ
        server_only = {"run": {"pushed_at", "pushed_by"}}
        for tbl, cols in sorted(want.items()):
            self.assertIn(tbl, have, "table %s is not on the server"
                          " (schema/pg/)" % tbl)
            extra = set(have[tbl]) - set(cols) - server_only.get(tbl, set())
            if not by_id[tbl]:
                self.assertEqual(have[tbl].get("ord"), "integer", tbl)
                extra.discard("ord")
            missing = sorted("%s.%s" % (tbl, c) for c in cols
                             if c not in have[tbl])
            self.assertEqual(missing, [], "summary columns missing on the"
                             " server: add a schema/pg migration")
            self.assertEqual(sorted(extra), [], "server columns no summary"
                             " table has: " + tbl)
            for c, t in cols.items():
                self.assertEqual(have[tbl][c], t, "%s.%s" % (tbl, c))

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

    def test_sixteen_pushes_at_once_while_four_check(self):
        """The issue's 16 processes pushing at once, 3 runs each here
        (bench/pg_concurrency.py: 50 each), into a server holding the
        replayed family; every job also pushes the first run of the next
        job (16 runs raced by two pushes).  4 more processes run `check`
        meanwhile.  Every run stored once, none lost, ids 1..N with no
        gap, every row; every check answers the known verdict (run20 a
        regression, h5 not)."""
        n, per, n_check = 16, 3, 4
        src = family()
        rc, out, err = profan("push", *range(1, 13), "--to", self.url,
                              db=src)
        self.assertEqual(rc, 0, err)
        work = os.path.join(self.tmp.name, "clones")
        os.makedirs(work)
        clones = pg_concurrency.make_clones(PROFAN, work, n * per)
        r = pg_concurrency.run(PROFAN, self.url, src, clones, n, per,
                               n_check)
        for rc, out, err in r["pushes"]:
            self.assertEqual(rc, 0, err)
        self.assertEqual(sum(pg_concurrency.skipped(out)
                             for rc, out, err in r["pushes"]), n)
        names = SERVER.psql("SELECT name, count(*) FROM profan.run WHERE"
                            " id > 12 GROUP BY name", self.dbname)
        self.assertEqual(sorted(m for m, c in names),
                         sorted("r%d" % i for i in range(n * per)))
        self.assertTrue(all(c == "1" for m, c in names))
        ids = [int(x[0]) for x in SERVER.psql("SELECT id FROM profan.run",
                                              self.dbname)]
        self.assertEqual(sorted(ids), list(range(1, 13 + n * per)))
        self.assertEqual(int(SERVER.psql(
            "SELECT count(*) FROM profan.step WHERE run_id > 12",
            self.dbname)[0][0]), local_counts_of(
                clones, ["r%d" % i for i in range(n * per)]))
        self.assertGreaterEqual(len(r["checks"]), n_check)
        wrong = [c[:4] for c in r["checks"] if c[2] != c[1]]
        self.assertEqual(wrong, [], pg_concurrency.summary(r))


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

    def test_refused_tls_mode(self):
        """A client that requires TLS (sslmode=require or verify-full)
        against a server without SSL: one line naming the server and
        libpq's reason, exit 7, the password in no output, the local
        database unchanged.  Over TCP: libpq ignores sslmode on a Unix
        socket, so a second throwaway server listens on 127.0.0.1."""
        src = family()
        before = sha(src)
        with socket.socket() as so:
            so.bind(("127.0.0.1", 0))
            port = so.getsockname()[1]
        srv = pgserver.PgServer(tcp_port=port).start()
        try:
            plain = srv.url("postgres")
            rc, out, err = profan("runs", "--history", plain, db=src)
            self.assertEqual(rc, 0, err)       # the server itself answers
            urls = [plain + " sslmode=require password=tls-s3cret-1",
                    plain + " sslmode=verify-full password=tls-s3cret-1",
                    "postgresql://profan:tls-s3cret-1@127.0.0.1:%d/postgres"
                    "?sslmode=require" % port]
            for url in urls:
                for cmd in (["push", "base", "--to", url],
                            ["check", "--baseline", "main", "--history",
                             url],
                            ["trend", "gpu_ms", "--history", url],
                            ["runs", "--history", url]):
                    r = profan(*cmd, db=src)
                    self.one_line(r)
                    self.assertEqual(
                        r[2], "profan: history server postgres on"
                        " 127.0.0.1:%d: connection to server at"
                        " \"127.0.0.1\", port %d failed: server does not"
                        " support SSL, but SSL was required\n"
                        % (port, port), cmd)
                    self.assertNotIn("tls-s3cret-1", r[1] + r[2])
            self.assertEqual(srv.psql("SELECT count(*) FROM profan.run"),
                             [["0"]])
        finally:
            srv.cleanup()
        self.assertEqual(sha(src), before)

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
