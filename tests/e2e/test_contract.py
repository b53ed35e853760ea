"""test_contract.py — one exit-code contract for every command (issue 33).

CONTRACT below is the table of the coordination notes, written here, not
read from profan: `profan --help`, each command's --help, the manual page
(`profan --man`) and docs/commands.md (`profan --reference`) are compared
with it, and every command is run with each class of mistake (unknown
run, unknown name, bad value, missing / corrupt / locked / read-only
database, Ctrl-C) and checked for its exit code and its exact message.
CODES says which codes each command may return; every exit seen must be
one of them and one its --help lists.
"""
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import textwrap
import time
import unittest

import common
import pgserver
from common import shared

# code -> (short word of a command's --help, the whole meaning)
CONTRACT = [
    (0, "ok", "ok (check: pass, improved or noise)"),
    (1, "regression", "regression found (check only; nothing else exits 1)"),
    (2, "usage error or bad value",
     "usage error or bad value: unknown command, option, run, name, query,"
     " metric, section or parameter, a bad value, an ambiguous run"
     " reference"),
    (3, "SQL error", "SQL error (your SQL, or a query that failed)"),
    (4, "nothing to compare",
     "nothing to compare (check: nothing comparable; 0 with"
     " --allow-missing)"),
    (5, "inconclusive", "inconclusive (check)"),
    (6, "bad input file",
     "bad input file (ingest, merge): unreadable or malformed input, named"
     " with the file and offset or line"),
    (7, "database error",
     "database error: missing, unreadable, not a profan database, corrupt,"
     " newer schema, locked past --timeout, not writable, out of memory or"
     " disk; also the history server (PostgreSQL) unreachable, refused or"
     " failing"),
    (130, "interrupted", "interrupted by SIGINT (Ctrl-C): nothing written"),
    (143, "terminated", "terminated by SIGTERM: nothing written"),
]
BASE = {0, 2, 130, 143}
DB = BASE | {7}
CODES = {
    "ingest": DB | {6}, "query": DB | {3}, "queries": BASE | {3},
    "runs": DB, "show": DB, "sql": DB | {3}, "rm": DB, "rename": DB,
    "tag": DB, "baseline": DB, "diff": DB | {3}, "trend": DB | {3},
    "check": DB | {1, 3, 4, 5}, "report": DB | {3}, "merge": DB | {6},
    "export-trace": DB, "rebuild": DB, "push": DB,
}
WRITERS = ("ingest", "rm", "rename", "tag", "baseline", "merge", "rebuild")

NO_RUN = ("profan: no run 'nosuch' (give an id, a name, or 'latest';"
          " 'profan runs' lists them)\n")
NO_DB = "profan: %s: no database here (run 'profan ingest' first, or use --db)\n"
NOT_DB = "profan: %s: not a database (or unreadable): file is not a database\n"
LOCKED = ("profan: waiting for another writer to finish (the database is"
          " locked)\u2026\nprofan: %s: the database is still locked by"
          " another writer after 0.2 s (--timeout); nothing written\n")
IMMUTABLE = ("profan: note: directory %s is not writable (%s): the database"
             " is read as an immutable file (no journal beside it; a change"
             " made meanwhile is not seen)\n")


def exit_line(codes):
    """A command's "Exit codes: ..." line, wrapped as --help does."""
    words, seen = [], set()
    for code, short, _ in CONTRACT:
        if code not in codes or code in seen:
            continue
        if code in (130, 143) and {130, 143} <= codes:
            words.append("130/143 interrupted,")
            seen |= {130, 143}
        else:
            words.append("%d %s," % (code, short))
    lines, line = [], "Exit codes:"
    for w in words:
        if len(line) + 1 + len(w) > 76:
            lines.append(line)
            line = w
        else:
            line += " " + w
    lines.append(line[:-1] + ".")
    return "\n".join(lines) + "\n"


def commands_of_help():
    out = common.run("--help").out
    block = out.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.strip()]


def write_trace(path, n_kernels):
    """A trace of one rank with n_kernels kernels (big enough to be
    interrupted: about 150 bytes a kernel)."""
    with open(path, "w") as f:
        f.write('{"traceEvents": [')
        f.write(",".join('{"ph":"X","cat":"kernel","name":"k%d","pid":0,'
                         '"tid":7,"ts":%d,"dur":50,"args":{"device":0,'
                         '"stream":7,"correlation":%d}}' % (i % 7, 1000 + 100 * i,
                                                            i)
                         for i in range(n_kernels)))
        f.write("]}")


class Docs(unittest.TestCase):
    """The generated help, manual page and reference against CONTRACT."""

    def test_help_ends_with_the_table(self):
        out = common.run("--help").out
        head = "\nExit codes (each command's --help lists its own):\n"
        self.assertIn(head, out)
        want = ""
        for code, _, meaning in CONTRACT:
            want += textwrap.fill(meaning, width=79,
                                  initial_indent="  %-8d " % code,
                                  subsequent_indent=" " * 11,
                                  break_long_words=False,
                                  break_on_hyphens=False) + "\n"
        self.assertEqual(out.split(head, 1)[1], want)

    def test_every_command_lists_its_codes(self):
        cmds = commands_of_help()
        self.assertEqual(sorted(cmds), sorted(CODES))
        for c in cmds:
            out = common.run(c, "--help").out
            self.assertTrue(out.endswith(exit_line(CODES[c])), (c, out[-300:]))

    def test_man_page_exit_status(self):
        man = common.run("--man").out.replace("\\-", "-")
        sec = man.split(".SH EXIT STATUS\n", 1)[1].split(".SH ", 1)[0]
        got = re.findall(r"\.TP\n\.B (\d+)\n(.*)\n", sec)
        self.assertEqual([(int(c), m) for c, m in got],
                         [(c, m) for c, _, m in CONTRACT])
        for c in CODES:
            part = man.split(".SS %s\n" % c, 1)[1].split(".SS ", 1)[0]
            self.assertIn(".PP\n" + exit_line(CODES[c]).replace("\n", " ")
                          .rstrip() + "\n", part, c)

    def test_reference_is_generated_and_has_the_table(self):
        ref = common.run("--reference").out
        with open(os.path.join(common.ROOT, "docs", "commands.md"),
                  encoding="utf-8") as f:
            self.assertEqual(f.read(), ref, "docs/commands.md is not what"
                             " 'profan --reference' prints: regenerate it")
        self.assertTrue(ref.startswith("<!-- GENERATED by 'profan"
                                       " --reference'"))
        rows = re.findall(r"^\| (\d+) \| (.*) \|$", ref, re.M)
        self.assertEqual([(int(c), m) for c, m in rows],
                         [(c, m) for c, _, m in CONTRACT])
        for c in CODES:
            self.assertIn("\n## %s\n" % c, ref)
            part = ref.split("\n## %s\n" % c, 1)[1].split("\n## ", 1)[0]
            self.assertTrue(part.endswith("\n" + exit_line(CODES[c])), c)

    def test_readme_states_the_contract(self):
        with open(os.path.join(common.ROOT, "README.md"),
                  encoding="utf-8") as f:
            readme = f.read()
        sec = readme.split("## Commands\n", 1)[1].split("\n## ", 1)[0]
        sec = " ".join(sec.split())
        for code, short, _ in CONTRACT:
            self.assertIn("%d %s" % (code, short), sec)


class Mistakes(unittest.TestCase):
    """Every command with each class of mistake: the exit code of the
    contract and the exact message."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.tmp.name
        os.chmod(d, 0o755)
        cls.trace = shared("traces", "hta-compare-base.json.gz")
        cls.trace2 = shared("traces", "hta-compare-test.json.gz")
        cls.trace3 = shared("traces", "hta-triton.json.gz")
        cls.good = os.path.join(d, "good.db")
        for t, n in ((cls.trace, "base-run"), (cls.trace2, "test-run")):
            r = common.run("ingest", "--quiet", "--name", n, t, db=cls.good)
            assert r.rc == 0, r.err
        r = common.run("baseline", "set", "main", "1", db=cls.good)
        assert r.rc == 0, r.err
        cls.shard = os.path.join(d, "shard.db")
        r = common.run("ingest", "--quiet", "--name", "shard", cls.trace3,
                       db=cls.shard)
        assert r.rc == 0, r.err
        # push needs a history server: a throwaway one (pgserver.py)
        cls.pg = None
        if pgserver.bindir() is not None:
            cls.pg = pgserver.PgServer().start()
        elif os.environ.get("CI") == "true":
            raise AssertionError("PostgreSQL binaries missing under CI")

    @classmethod
    def tearDownClass(cls):
        if cls.pg is not None:
            cls.pg.cleanup()
        cls.tmp.cleanup()

    def setUp(self):
        self.dir = tempfile.mkdtemp(dir=self.tmp.name)
        self.db = os.path.join(self.dir, "t.db")
        shutil.copy(self.good, self.db)
        self.out = os.path.join(self.dir, "out.json")

    def tearDown(self):
        os.chmod(self.dir, 0o755)
        shutil.rmtree(self.dir)

    def good_args(self, db):
        """Each command with arguments that work on the database."""
        args = {
            "ingest": ["--quiet", self.trace3],
            "query": ["top-kernels", "--run", "1"],
            "queries": [],
            "runs": [],
            "show": ["1"],
            "sql": ["SELECT count(*) FROM run"],
            "rm": ["2"],
            "rename": ["2", "renamed"],
            "tag": ["1", "k=v"],
            "baseline": ["set", "rel", "1"],
            "diff": ["1", "2"],
            "trend": ["step_time_median_ms"],
            "check": ["--baseline", "main", "--run", "2"],
            "report": ["1"],
            "merge": ["--into", db, self.shard],
            "export-trace": ["1", "-o", self.out],
            "rebuild": ["--quiet", "1"],
            "push": ["1", "--to", self.pg.url() if self.pg else ""],
        }
        if self.pg is None:         # no PostgreSQL here (CI has it)
            del args["push"]
        return args

    def expect(self, cmd, args, rc, err, db=None, run=common.run):
        """profan CMD ARGS: exit rc and stderr err (a string, or a compiled
        pattern); rc is always one the contract allows for CMD."""
        r = run(cmd, *args, db=self.db if db is None else db)
        with self.subTest(cmd=cmd, args=args):
            self.assertIn(r.rc, CODES[cmd], r.err)
            self.assertEqual(r.rc, rc, r.err)
            if isinstance(err, str):
                self.assertEqual(r.err, err)
            else:
                self.assertRegex(r.err, err)
        return r

    def test_good_arguments_work(self):
        """The baseline of every other test: each command's good arguments
        exit 0 (so that a refusal below is the mistake's)."""
        for cmd, args in self.good_args(self.db).items():
            shutil.copy(self.good, self.db)     # rm and rename change it
            self.expect(cmd, args, 0,
                        re.compile(r"(?s).*"))

    def test_unknown_run(self):
        cases = {
            "query": ["top-kernels", "--run", "nosuch"],
            "show": ["nosuch"],
            "rm": ["nosuch"],
            "rebuild": ["nosuch"],
            "rename": ["nosuch", "x"],
            "tag": ["nosuch", "k=v"],
            "baseline": ["set", "rel", "nosuch"],
            "diff": ["1", "nosuch"],
            "check": ["--baseline", "main", "--run", "nosuch"],
            "report": ["nosuch"],
            "export-trace": ["nosuch", "-o", self.out],
        }
        before = common.run("sql", "SELECT * FROM run", db=self.db).out
        for cmd, args in cases.items():
            extra = {"rm": "profan: nothing removed (1 of 1 RUN not found or"
                           " ambiguous)\n",
                     "rebuild": "profan: nothing rebuilt (1 of 1 RUN not"
                                " found)\n"}.get(cmd, "")
            self.expect(cmd, args, 2, NO_RUN + extra)
        # a near name is offered
        self.expect("show", ["base-rum"], 2, "profan: no run 'base-rum' (did"
                    " you mean 'base-run'? 'profan runs' lists them)\n")
        self.assertEqual(common.run("sql", "SELECT * FROM run",
                                    db=self.db).out, before)
        self.assertFalse(os.path.exists(self.out))

    def test_unknown_names(self):
        usage = "usage: profan %s\ntry 'profan %s --help' for more information\n"

        def use(cmd):
            line = [x for x in common.run(cmd, "--help").out.splitlines()
                    if x.startswith("usage: ")][0]
            return usage % (line[len("usage: profan "):], cmd)
        r = common.run("quer", db=self.db)
        self.assertEqual((r.rc, r.err), (2, "profan: unknown command 'quer'"
                         " (did you mean 'query'?)\ntry 'profan --help' for"
                         " more information\n"))
        r = common.run("--fromat", "json", "runs", db=self.db)
        self.assertEqual(r.rc, 2)
        self.assertEqual(r.err.splitlines()[0], "profan: unknown option"
                         " --fromat (did you mean '--format'?)")
        for cmd in CODES:
            self.expect(cmd, ["--bogus"], 2, "profan: unknown option --bogus\n"
                        + use(cmd))
        self.expect("ingest", ["--nmae", "x", self.trace3], 2,
                    "profan: unknown option --nmae (did you mean"
                    " '--name'?)\n" + use("ingest"))
        self.expect("query", ["top-kernel"], 2, "profan: no query named"
                    " 'top-kernel' (did you mean 'top-kernels'? 'profan"
                    " queries' lists them)\n")
        self.expect("query", ["top-kernels", "--param", "limt=3"], 2,
                    "profan: query 'top-kernels' has no parameter 'limt' (did"
                    " you mean 'limit'? it takes: rank, kind, limit)\n")
        self.expect("report", ["--param", "threshhold_pct=3"], 2,
                    "profan: no rule has a parameter 'threshhold_pct' (did"
                    " you mean 'threshold_pct'?)\n")
        self.expect("trend", ["step_time_mediam_ms"], 2, "profan: no run has"
                    " the metric 'step_time_mediam_ms' (did you mean"
                    " 'step_time_median_ms'? 'profan query run-metrics' lists"
                    " them)\n")
        self.expect("check", ["--baseline", "main", "--metric", "gpu_util"],
                    2, "profan: no run has the metric 'gpu_util' (did you"
                    " mean 'gpu_util_pct'? 'profan query run-metrics' lists"
                    " them)\n")
        self.expect("show", ["1", "--section", "step"], 2, "profan: no"
                    " section 'step' (did you mean 'steps'? sections: run,"
                    " files, devices, steps, clocks)\n" + use("show"))
        self.expect("report", ["--section", "sumary"], 2, "profan: no"
                    " section 'sumary' (did you mean 'summary'? sections:"
                    " summary, findings)\n" + use("report"))
        self.expect("diff", ["1", "2", "--by", "kernal"], 2, "profan: no --by"
                    " value 'kernal' (did you mean 'kernel'? choices:"
                    " metrics, category, kernel, op, memory, tensors)\n"
                    + use("diff"))
        self.expect("baseline", ["rm", "mian"], 2, "profan: no baseline named"
                    " 'mian' (did you mean 'main'? 'profan baseline list'"
                    " lists them)\n")
        self.expect("baseline", ["lsit"], 2, "profan: unknown baseline"
                    " command 'lsit' (did you mean 'list'?) (set, list, rm)\n"
                    + use("baseline"))

    def test_bad_values(self):
        cases = [
            ("ingest", ["--threads", "0", self.trace3],
             "--threads must be between 1 and 16"),
            ("ingest", ["--timeout", "soon", self.trace3],
             "--timeout needs seconds >= 0, got 'soon'"),
            ("query", ["top-kernels", "--limit", "-1"],
             "--limit needs a number >= 0"),
            ("check", ["--baseline", "main", "--threshold", "5x"],
             "--threshold needs a number >= 0, got '5x'"),
            ("trend", ["steps", "--last", "x"], "--last needs a number >= 0"),
            ("diff", ["1", "2", "--floor", "abc"],
             "--floor needs a number >= 0, got 'abc'"),
            ("report", ["--html", self.out, "--step", "x"],
             "--step needs a step number >= 0"),
            ("tag", ["1", "novalue"], "tags are K=V, got 'novalue'"),
            ("rm", ["1", "--timeout", "-1"],
             "--timeout needs seconds >= 0, got '-1'"),
        ]
        for cmd, args, msg in cases:
            self.expect(cmd, args, 2, re.compile("^profan: %s\nusage: "
                                                 % re.escape(msg)))
        # values the database refuses: one line, nothing written
        self.expect("export-trace", ["1", "--step", "99", "-o", self.out], 2,
                    re.compile(r"^profan: export-trace: no step 99 in run 1"
                               r" \(steps: [0-9, -]+\)\n$"))
        self.expect("query", ["top-kernels", "--param", "rank=9"], 2,
                    re.compile(r"^profan: bad value '9' for parameter 'rank'"
                               r" of query 'top-kernels': it accepts .*\n$"))
        self.expect("export-trace", ["1", "-o", os.path.join(
            self.dir, "no", "such.json")], 2,
            re.compile(r"^profan: export-trace: .*No such file or directory"))
        # names that read as run ids, 'latest', empty: refused (issue 33.2)
        why = {"3": "reads as a run id", "": "is empty",
               "latest": "is the word 'latest' (the newest run)",
               " 42 ": "reads as a run id", "-7": "reads as a run id"}
        tail = (": a run name cannot be empty, 'latest' or a number (runs"
                " are named by id too)\n")
        for name, w in why.items():
            self.expect("ingest", ["--name", name, self.trace3], 2,
                        "profan: --name '%s' %s%s" % (name, w, tail))
            self.expect("merge", ["--into", self.db, "--name", name,
                                  self.shard], 2,
                        "profan: --name '%s' %s%s" % (name, w, tail))
            if name.startswith("-"):
                continue                # an option where a NAME goes
            self.expect("rename", ["2", name], 2,
                        "profan: NAME '%s' %s%s" % (name, w, tail))
            self.expect("baseline", ["set", name, "1"], 2,
                        "profan: baseline NAME '%s' %s%s" % (name, w, tail))
        r = common.run("--width", "5", "runs", db=self.db)
        self.assertEqual(r.rc, 2)
        self.assertEqual(r.err.splitlines()[0], "profan: --width needs a"
                         " number of columns >= 20, got '5'")
        r = common.run("--format", "xml", "runs", db=self.db)
        self.assertEqual(r.rc, 2)
        self.assertEqual(r.err.splitlines()[0], "profan: unknown format"
                         " 'xml' (table, csv, json, markdown)")

    def test_sql_errors(self):
        self.expect("sql", ["SELEC 1"], 3, "profan: sql: near \"SELEC\":"
                    " syntax error\n")
        self.expect("sql", ["DELETE FROM run"], 3, "profan: sql: attempt to"
                    " write a readonly database\n")
        self.assertEqual(common.run("--format", "csv", "sql",
                                    "SELECT count(*) AS n FROM run",
                                    db=self.db).rows(), [{"n": "2"}])

    def test_missing_database(self):
        missing = os.path.join(self.dir, "missing.db")
        for cmd, args in self.good_args(missing).items():
            if cmd in ("queries",):
                continue
            if cmd in ("ingest", "merge"):
                continue               # they create it
            self.expect(cmd, args, 7, NO_DB % missing, db=missing)
        gone = os.path.join(self.dir, "gone", "x.db")
        self.expect("ingest", ["--quiet", self.trace3], 7, "profan: %s:"
                    " cannot create database: no directory %s\n"
                    % (gone, os.path.dirname(gone)), db=gone)
        self.expect("merge", ["--into", gone, self.shard], 7, re.compile(
            r"^profan: %s: .*\n$" % re.escape(gone)), db=gone)
        self.assertFalse(os.path.exists(os.path.dirname(gone)))
        # a missing input file is a bad input file
        self.expect("ingest", [os.path.join(self.dir, "nope.json")], 6,
                    re.compile(r"^profan: %s: .*\n$"
                               % re.escape(os.path.join(self.dir,
                                                        "nope.json"))))
        self.expect("merge", ["--into", self.db, os.path.join(
            self.dir, "nope.db")], 6, "profan: %s: cannot read the shard (No"
            " such file or directory)\n" % os.path.join(self.dir, "nope.db"))

    def test_corrupt_database(self):
        junk = os.path.join(self.dir, "junk.db")
        with open(junk, "w") as f:
            f.write("not a database\n" * 300)
        before = open(junk, "rb").read()
        for cmd, args in self.good_args(junk).items():
            if cmd == "queries":
                continue
            if cmd == "merge":
                args = ["--into", junk, self.shard]
            self.expect(cmd, args, 7, NOT_DB % junk, db=junk)
        self.assertEqual(open(junk, "rb").read(), before)
        # a damaged page: the statement that reads it fails with 7
        bad = os.path.join(self.dir, "bad.db")
        shutil.copy(self.good, bad)
        size = os.path.getsize(bad)
        with open(bad, "r+b") as f:
            f.seek(size // 2)
            f.write(b"\xa5" * (size // 4))
        r = common.run("sql", "SELECT count(*), sum(dur) FROM kernel", db=bad)
        self.assertEqual(r.rc, 7, r.err)
        self.assertIn("malformed", r.err)
        # a shard that is not a database is a bad input file
        self.expect("merge", ["--into", self.db, junk], 6, NOT_DB % junk)
        # an input that is not a trace: a bad input file
        self.expect("ingest", [junk], 6, re.compile(r"^profan: %s: .*\n$"
                                                    % re.escape(junk)))

    def test_locked_database(self):
        """Another writer holds the database: every writer waits, with the
        same message, then fails with 7; the readers work."""
        lock = sqlite3.connect(self.db, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        try:
            for cmd, args in self.good_args(self.db).items():
                if cmd in WRITERS:
                    self.expect(cmd, args + ["--timeout", "0.2"], 7,
                                LOCKED % self.db)
                elif cmd != "queries":
                    self.expect(cmd, args, 0, re.compile(r"(?s).*"))
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        self.assertEqual(common.run("--format", "csv", "sql", "SELECT id,"
                                    " name FROM run", db=self.db).rows(),
                         [{"id": "1", "name": "base-run"},
                          {"id": "2", "name": "test-run"}])

    def test_writer_waits_then_writes(self):
        """Not only ingest: tag waits for the other writer and goes on."""
        lock = sqlite3.connect(self.db, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        p = subprocess.Popen([common.PROFAN, "--db", self.db, "tag", "1",
                              "waited=yes"], stderr=subprocess.PIPE,
                             text=True, stdin=subprocess.DEVNULL)
        first = p.stderr.readline()
        time.sleep(0.5)
        lock.execute("ROLLBACK")
        lock.close()
        rest = p.stderr.read()
        self.assertEqual(p.wait(timeout=common.TIMEOUT), 0, rest)
        self.assertEqual(first, "profan: waiting for another writer to finish"
                         " (the database is locked)\u2026\n")
        self.assertRegex(rest, r"^profan: the other writer finished after"
                         r" \d+\.\d s\nprofan: run 1: 1 tag set, 0 removed\n$")

    def unprivileged_dir(self):
        """self.dir made unwritable for the user profan runs as (nobody
        under root, through setpriv)."""
        os.chmod(self.tmp.name, 0o755)
        os.chmod(self.db, 0o644)
        os.chmod(self.dir, 0o555)

    def test_read_only_directory(self):
        """A database in a directory the user cannot write: the readers
        work (immutable, with a note), the writers fail with 7."""
        if os.geteuid() == 0 and shutil.which("setpriv") is None:
            raise AssertionError("setpriv missing: run scripts/setup.sh")
        self.unprivileged_dir()
        outdir = tempfile.mkdtemp(dir=self.tmp.name)
        os.chmod(outdir, 0o777)
        note = IMMUTABLE % (self.dir, "Permission denied")
        for cmd, args in self.good_args(self.db).items():
            if cmd == "queries":
                continue
            if cmd == "export-trace":
                args = ["1", "-o", os.path.join(outdir, "x.json")]
            if cmd in WRITERS:
                want = "cannot open database: the file is not writable" \
                    " (Permission denied)" if os.geteuid() == 0 else \
                    "cannot open database: directory %s is not writable" \
                    " (Permission denied); profan keeps the journal (-wal," \
                    " -shm) beside the database" % self.dir
                if cmd == "merge":
                    args = ["--into", self.db, self.shard]
                self.expect(cmd, args, 7, "profan: %s: %s\n" % (self.db, want),
                            run=common.run_unprivileged)
            else:
                self.expect(cmd, args, 0, re.compile("^" + re.escape(note)),
                            run=common.run_unprivileged)
        self.assertEqual(sorted(os.listdir(self.dir)), ["t.db"])

    def test_read_only_mount(self):
        """The same on a read-only bind mount (a user namespace: root
        there, and EROFS for everyone)."""
        if shutil.which("unshare") is None:
            common.env_unable("no unshare")
        ro = os.path.join(self.dir, "ro")
        os.mkdir(ro)
        shutil.copy(self.good, os.path.join(ro, "t.db"))
        db = os.path.join(ro, "t.db")
        script = ('mount --bind -o ro "$1" "$1" 2>/dev/null || '
                  'mount -o remount,ro,bind "$1" "$1" 2>/dev/null || exit 99;'
                  ' shift; for c in "$@"; do eval "$c"; echo "rc=$?"; done')
        cmds = ['"%s" --db "%s" runs' % (common.PROFAN, db),
                '"%s" --db "%s" --format csv sql "SELECT count(*) AS n FROM'
                ' run"' % (common.PROFAN, db),
                '"%s" --db "%s" report 1 --section summary'
                % (common.PROFAN, db),
                '"%s" --db "%s" tag 1 k=v' % (common.PROFAN, db),
                '"%s" --db "%s" rm 1' % (common.PROFAN, db)]
        p = subprocess.run(["unshare", "-rm", "sh", "-c", script, "sh", ro]
                           + cmds, capture_output=True, text=True)
        if p.returncode == 99 or "unshare failed" in p.stderr:
            common.env_unable("no read-only bind mount here: " + p.stderr)
        rcs = re.findall(r"^rc=(\d+)$", p.stdout, re.M)
        self.assertEqual(rcs, ["0", "0", "0", "7", "7"], p.stdout + p.stderr)
        self.assertIn(IMMUTABLE % (ro, "Read-only file system"), p.stderr)
        self.assertIn("n\n2\n", p.stdout)
        self.assertEqual(p.stderr.count("profan: %s: cannot open database:"
                                        % db), 2, p.stderr)

    def test_interrupted_ingest_writes_nothing(self):
        big = os.path.join(self.dir, "big.json")
        write_trace(big, 300000)
        before = common.run("--format", "csv", "sql", "SELECT id, name FROM"
                            " run", db=self.db).rows()
        for sig, rc in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            p = subprocess.Popen([common.PROFAN, "--db", self.db, "ingest",
                                  "--threads", "1", big],
                                 stderr=subprocess.PIPE, text=True,
                                 stdin=subprocess.DEVNULL)
            time.sleep(0.4)
            p.send_signal(sig)
            err = p.stderr.read()
            self.assertEqual(p.wait(timeout=common.TIMEOUT), rc, err)
            self.assertIn(rc, CODES["ingest"])
            self.assertEqual(err, "profan: interrupted, nothing written\n")
            self.assertEqual(common.run("--format", "csv", "sql", "SELECT id,"
                                        " name FROM run", db=self.db).rows(),
                             before)
        r = common.run("sql", "PRAGMA integrity_check", db=self.db)
        self.assertEqual(r.out.split()[-1], "ok")

    def test_interrupted_reader(self):
        p = subprocess.Popen([common.PROFAN, "--db", self.db, "sql",
                              "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL"
                              " SELECT x+1 FROM c) SELECT count(*) FROM c"],
                             stderr=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, stdin=subprocess.DEVNULL)
        time.sleep(0.3)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=common.TIMEOUT)
        self.assertEqual((p.returncode, err), (130, "profan: interrupted\n"))


class RunNames(common.ProfanTest):
    """A number names a run by its id only (issue 33 point 2)."""

    def test_default_name_that_reads_as_an_id(self):
        d = os.path.join(self.tmp.name, "12345")
        os.mkdir(d)
        shutil.copy(shared("traces", "hta-triton.json.gz"), d)
        r = self.ingest_ok(d)
        self.assertIn("profan: the name '12345' would read as a run id: this"
                      " run is named 'run-12345' (--name to choose one)\n",
                      r.err)
        self.assertEqual(self.sql("SELECT id, name FROM run"),
                         [{"id": "1", "name": "run-12345"}])

    def test_old_database_with_a_numeric_name(self):
        self.ingest_ok(shared("traces", "hta-compare-base.json.gz"),
                       extra=("--name", "a"))
        self.ingest_ok(shared("traces", "hta-compare-test.json.gz"),
                       extra=("--name", "b"))
        # as a database from before names were checked holds it
        con = sqlite3.connect(self.db)
        con.execute("UPDATE run SET name = '1' WHERE id = 2")
        con.commit()
        con.close()
        # ids win, and the command says so
        r = self.profan("--format", "csv", "show", "1", "--section", "run")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(r.rows()[0]["name"], "a")
        self.assertEqual(r.err, "profan: note: '1' is run 1; run 2 is named"
                         " '1', which reads as an id (ids win; 'profan"
                         " rename 2 NAME' renames it)\n")
        # rm never acts on an ambiguous reference
        r = self.profan("rm", "1")
        self.assertEqual((r.rc, r.err), (2, "profan: '1' is ambiguous: run"
                         " 1's id and run 2's name ('profan rename 2 NAME'"
                         " renames run 2)\nprofan: nothing removed (1 of 1"
                         " RUN not found or ambiguous)\n"))
        self.assertEqual(len(self.sql("SELECT id FROM run")), 2)
        r = self.profan("rename", "2", "job-1")
        self.assertEqual((r.rc, r.err), (0, "profan: run 2 is named"
                                         " 'job-1'\n"))
        r = self.profan("rm", "1")
        self.assertEqual((r.rc, r.err), (0, "profan: removed run 1 (a)\n"))
        self.assertEqual(self.sql("SELECT id, name FROM run"),
                         [{"id": "2", "name": "job-1"}])
        # a name in use is refused
        self.ingest_ok(shared("traces", "hta-triton.json.gz"),
                       extra=("--name", "c"))
        r = self.profan("rename", "c", "job-1")
        self.assertEqual((r.rc, r.err), (2, "profan: the name 'job-1' is"
                                         " taken by run 2; nothing"
                                         " renamed\n"))

    def test_merge_of_a_shard_named_like_an_id(self):
        shard = os.path.join(self.tmp.name, "s.db")
        r = common.run("ingest", "--quiet", "--name", "s",
                       shared("traces", "hta-triton.json.gz"), db=shard)
        self.assertEqual(r.rc, 0, r.err)
        con = sqlite3.connect(shard)
        con.execute("UPDATE run SET name = '7'")
        con.commit()
        con.close()
        r = common.run("merge", "--quiet", "--into", self.db, shard)
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(self.sql("SELECT name FROM run"),
                         [{"name": "run-7"}])


class TypedOutput(common.ProfanTest):
    """Numbers are numbers; units only where they apply (point 5)."""

    def test_report_json_numbers(self):
        t = shared("traces", "hta-compare-base.json.gz")
        self.ingest_ok(t)
        r = self.profan("--format", "json", "report")
        self.assertEqual(r.rc, 0, r.err)
        summary = {x["item"]: x["value"] for x in r.json()["summary"]}
        met = {x["metric"]: float(x["value"])
               for x in self.query("run-metrics")}
        self.assertIsInstance(summary["step time median ms"], float)
        self.assertLessEqual(abs(summary["step time median ms"]
                                 - met["step_time_median_ms"]), 0.00051)
        self.assertIsInstance(summary["GPU utilization %"], float)
        self.assertLessEqual(abs(summary["GPU utilization %"]
                                 - met["gpu_util_pct"]), 0.051)
        # the steps, counted here from the trace's ProfilerStep annotations
        steps = {e["name"] for e in common.events(t)
                 if str(e.get("name", "")).startswith("ProfilerStep#")}
        self.assertEqual(summary["steps"], len(steps))
        self.assertIsInstance(summary["ranks"], int)
        self.assertIsInstance(summary["run"], str)

    def test_check_table_units(self):
        snap = shared("snapshots", "tomi-small.pickle")
        self.ingest_ok(snap, shared("traces", "hta-compare-base.json.gz"),
                       extra=("--name", "a"))
        self.ingest_ok(snap, shared("traces", "hta-compare-test.json.gz"),
                       extra=("--name", "b"))
        r = self.profan("--format", "csv", "check", "--baseline", "a",
                        "--run", "b", "--metric", "peak_allocated_bytes",
                        "--metric", "gpu_util_pct")
        raw = {x["metric"]: x for x in r.rows()}
        # markdown: the table's cells, rendered as in a terminal
        r = self.profan("--format", "markdown", "check", "--baseline", "a",
                        "--run", "b", "--metric", "peak_allocated_bytes",
                        "--metric", "gpu_util_pct")
        self.assertEqual(r.rc, 0, r.out + r.err)
        lines = [x for x in r.out.splitlines() if x.startswith("|")]
        head = [c.strip() for c in lines[0].strip("|").split("|")]
        rows = {}
        for line in lines[2:]:
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0]] = dict(zip(head, cells))
        pk = rows["peak_allocated_bytes"]
        val = int(float(raw["peak_allocated_bytes"]["value"]))
        self.assertTrue(pk["value"].endswith("iB") or pk["value"].endswith(
            " B"), pk)
        for row in rows.values():
            # counts and the direction: integers, no unit, no ".0"
            for col in ("direction", "n_baseline", "n_run", "history_runs"):
                self.assertRegex(row[col], r"^-?\d+$", (col, row))
            self.assertNotIn("B", row["robust_z"] if "robust_z" in row
                             else "")
        self.assertGreater(val, 0)

    def test_declared_units_of_named_queries(self):
        self.ingest_ok(shared("snapshots", "tomi-small.pickle"))
        r = self.profan("query", "run-metrics", "--param",
                        "like=peak_allocated_bytes")
        self.assertRegex(r.out.splitlines()[2],
                         r"^peak_allocated_bytes +\d+(\.\d)? [KMG]iB$")


class NamesInTables(common.ProfanTest):
    """--width shortens names the HTML report's way before cutting
    (point 9): no namespace, so names that differ in the middle stay
    apart."""

    def test_issue_example(self):
        sql = ("SELECT 'aten::native_batch_norm_backward' AS name, 1 AS n"
               " UNION ALL SELECT 'aten::convolution_backward', 2")
        self.ingest_ok(shared("traces", "hta-triton.json.gz"))
        r = self.profan("--width", "20", "sql", sql)
        self.assertEqual(r.rc, 0, r.err)
        names = [x.split()[0] for x in r.out.splitlines()[2:]]
        self.assertEqual(len(set(names)), 2, r.out)
        self.assertFalse(any(n.startswith("aten") for n in names), names)

        def fit(name, w):
            # the documented rule: no namespace, then the middle cut to w
            # code points (two fifths of the rest before the "…")
            short = name.split("::")[-1]
            if len(short) <= w:
                return short
            head = (w - 1) * 2 // 5
            return short[:head] + "\u2026" + short[len(short) - (w - 1 - head):]
        w = 20 - 2 - 1                    # the line less "  " and "n"
        self.assertEqual(names, [fit("aten::native_batch_norm_backward", w),
                                 fit("aten::convolution_backward", w)])


class Completion(common.ProfanTest):
    """bash completes names from the database, not file names
    (point 7)."""

    def setUp(self):
        super().setUp()
        self.ingest_ok(shared("traces", "hta-compare-base.json.gz"),
                       extra=("--name", "base-run"))
        self.ingest_ok(shared("traces", "hta-compare-test.json.gz"),
                       extra=("--name", "test-run"))
        self.assertEqual(self.profan("baseline", "set", "main", "1").rc, 0)
        self.script = common.run("--completion", "bash").out

    def complete(self, *words):
        prog = (self.script + "\nCOMP_WORDS=(%s)\nCOMP_CWORD=%d\n_profan\n"
                "printf '%%s\\n' \"${COMPREPLY[@]}\"\n"
                % (" ".join("'%s'" % w for w in words), len(words) - 1))
        r = subprocess.run(["bash", "-c", prog], capture_output=True,
                           text=True, cwd=self.tmp.name)
        self.assertEqual(r.returncode, 0, r.stderr)
        return sorted(x for x in r.stdout.split("\n") if x)

    def test_names_from_the_database(self):
        p, db = common.PROFAN, self.db
        self.assertEqual(self.complete(p, "--db", db, "show", ""),
                         ["base-run", "latest", "test-run"])
        self.assertEqual(self.complete(p, "--db", db, "rm", "base-run", "t"),
                         ["test-run"])
        self.assertEqual(self.complete(p, "query", "top-k"), ["top-kernels"])
        self.assertEqual(self.complete(p, "--db", db, "query", "top-kernels",
                                       "--run", "b"), ["base-run"])
        self.assertEqual(self.complete(p, "query", "top-kernels", "--param",
                                       ""), ["kind=", "limit=", "rank="])
        self.assertEqual(self.complete(p, "--db", db, "trend", "step_time_m"),
                         ["step_time_mean_ms", "step_time_median_ms"])
        self.assertEqual(self.complete(p, "--db", db, "check", "--metric",
                                       "gpu_u"), ["gpu_util_pct"])
        self.assertEqual(self.complete(p, "--db", db, "check", "--baseline",
                                       ""), ["main"])
        self.assertEqual(self.complete(p, "show", "1", "--section", ""),
                         ["clocks", "devices", "files", "run", "steps"])
        self.assertEqual(self.complete(p, "report", "--section", "s"),
                         ["summary"])
        self.assertEqual(self.complete(p, "diff", "1", "2", "--by", "k"),
                         ["kernel"])
        self.assertEqual(self.complete(p, "report", "--param", "threshold_p"),
                         ["threshold_pct="])
        self.assertEqual(self.complete(p, "baseline", ""),
                         ["list", "rm", "set"])
        self.assertEqual(self.complete(p, "--db", db, "baseline", "set",
                                       "rel", "t"), ["test-run"])
        # $PROFAN_DB when no --db is on the line
        os.environ["PROFAN_DB"] = db
        try:
            self.assertEqual(self.complete(p, "show", "b"), ["base-run"])
        finally:
            del os.environ["PROFAN_DB"]

    def test_file_names_only_where_a_path_goes(self):
        open(os.path.join(self.tmp.name, "trace.json"), "w").close()
        p = common.PROFAN
        self.assertEqual(self.complete(p, "ingest", "tr"), ["trace.json"])
        self.assertEqual(self.complete(p, "--db", "tr"), ["trace.json"])
        self.assertEqual(self.complete(p, "report", "--html", "tr"),
                         ["trace.json"])
        self.assertEqual(self.complete(p, "export-trace", "1", "-o", "tr"),
                         ["trace.json"])
        # no file names for a run, a name, a number or a query
        for words in (("show", "tr"), ("ingest", "--name", "tr"),
                      ("query", "--limit", "tr"),
                      ("query", "top-kernels", "tr"),
                      ("sql", "tr"), ("--width", "tr")):
            self.assertEqual(self.complete(p, *words), [], words)

    def test_zsh_runs_the_same_way(self):
        if shutil.which("zsh") is None:
            self.skipTest("zsh not installed (scripts/test.sh installs it)")
        script = common.run("--completion", "zsh").out
        # compadd and _files stand in for zsh's completion system
        prog = (script.replace('_profan "$@"\n', "") +
                '\ncompadd() { while [[ $1 == -* && $1 != -- ]]; do'
                ' [[ $1 == -S ]] && shift; shift; done; [[ $1 == -- ]] &&'
                ' shift; print -l -- "$@"; }\n_files() { print FILES; }\n'
                '_describe() { print COMMANDS; }\n'
                'words=(%s); CURRENT=${#words}; _profan\n')
        for words, want in (
                ((common.PROFAN, "--db", self.db, "show", ""),
                 ["base-run", "latest", "test-run"]),
                ((common.PROFAN, "ingest", ""), ["FILES"]),
                ((common.PROFAN, "ingest", "--name", ""), []),
                ((common.PROFAN, "query", "top-kernels", "--param", ""),
                 ["kind=", "limit=", "rank="]),
                ((common.PROFAN, "show", "1", "--section", ""),
                 ["clocks", "devices", "files", "run", "steps"])):
            r = subprocess.run(["zsh", "-f", "-c", prog % " ".join(
                "'%s'" % w for w in words)], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(sorted(x for x in r.stdout.split("\n") if x),
                             want, words)


class HtmlCommands(common.ProfanTest):
    """The HTML report's export commands name the database unless it is
    the default (point 8)."""

    def commands(self, cwd, *args):
        html = os.path.join(self.tmp.name, "r.html")
        r = common.run(*args, "report", "--html", html)
        self.assertEqual(r.rc, 0, r.err)
        text = open(html, encoding="utf-8").read()
        import html as h
        return [h.unescape(c) for c in re.findall(
            r'<p class="note export">[^<]*<code>([^<]*)</code>', text)]

    def test_default_database_has_no_db_option(self):
        t = shared("traces", "hta-compare-base.json.gz")
        cwd = os.getcwd()
        os.chdir(self.tmp.name)
        try:
            env = dict(os.environ)
            env.pop("PROFAN_DB", None)
            r = subprocess.run([common.PROFAN, "ingest", "--quiet", t],
                               capture_output=True, text=True, env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            p = subprocess.run([common.PROFAN, "report", "--html", "r.html"],
                               capture_output=True, text=True, env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            text = open("r.html", encoding="utf-8").read()
        finally:
            os.chdir(cwd)
        cmds = re.findall(r'<code>(profan [^<]*)</code>', text)
        self.assertTrue(cmds)
        self.assertTrue(all(c.startswith("profan export-trace ")
                            for c in cmds), cmds)

    def test_path_with_blanks_is_quoted(self):
        d = os.path.join(self.tmp.name, "my runs")
        os.mkdir(d)
        db = os.path.join(d, "it's.db")
        t = shared("traces", "hta-compare-base.json.gz")
        self.assertEqual(common.run("ingest", "--quiet", t, db=db).rc, 0)
        cmds = self.commands(self.tmp.name, "--db", db)
        self.assertTrue(cmds)
        for c in cmds:
            self.assertTrue(c.startswith("profan --db '%s' export-trace "
                                         % db.replace("'", "'\\''")), c)
            env = dict(os.environ)
            env["PATH"] = os.path.dirname(common.PROFAN) + ":" + env["PATH"]
            p = subprocess.run(["sh", "-c", c], cwd=d, env=env,
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, c + ": " + p.stderr)


if __name__ == "__main__":
    unittest.main()
