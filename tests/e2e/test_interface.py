"""test_interface.py — end-to-end tests of issue 17, "one consistent
interface": machine-readable output is one document, text is cut only to
fit a terminal, an empty result says why, numbers follow one rule per
unit, the raw time columns state their unit, ranking views order, and
ingest / rm / names never act silently.

Expected values come from the input files (Python's json, gzip, sqlite3
modules) or from the exact messages the README documents, never from
profan's own output.
"""
import fcntl
import glob
import gzip
import json
import os
import pty
import re
import select
import signal
import sqlite3
import struct
import subprocess
import sys
import termios
import time

import common
from common import ProfanTest, shared, local

DLRM = ("runs", "dlrm-8rank")


def human_bytes(v):
    """Binary units as the table output prints them (README "Output
    formats"): 512 B, 1.5 KiB, 56.9 GiB."""
    v = float(v)
    if abs(v) < 1024:
        return "%.0f B" % v
    for unit in ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        v /= 1024
        if abs(v) < 1024 or unit == "EiB":
            return "%.1f %s" % (v, unit)


def table_rows(text):
    """A --format table output as a list of dicts (columns found through
    the dashed separator line)."""
    lines = text.rstrip("\n").split("\n")
    head, sep = lines[0], lines[1]
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", sep)]
    names = [head[a:b].strip() for a, b in spans]
    out = []
    for line in lines[2:]:
        cells = []
        for k, (a, b) in enumerate(spans):
            end = spans[k + 1][0] if k + 1 < len(spans) else len(line)
            cells.append(line[a:end].strip())
        out.append(dict(zip(names, cells)))
    return out


def run_in_pty(args, cols, env=None):
    """Run profan with stdout on a pseudo-terminal `cols` wide; returns
    (rc, stdout text, stderr text)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, cols, 0, 0))
    e = dict(os.environ)
    e.pop("COLUMNS", None)
    if env:
        e.update(env)
    p = subprocess.Popen([common.PROFAN] + args, stdout=slave,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         env=e)
    os.close(slave)
    chunks = []
    while True:
        r, _, _ = select.select([master], [], [], 30)
        if not r:
            break
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    err = p.stderr.read().decode()
    rc = p.wait(timeout=common.TIMEOUT)
    os.close(master)
    out = b"".join(chunks).decode().replace("\r\n", "\n")
    return rc, out, err


def own_devices(run_dir):
    """(rank, device) of each trace: the device its kernels ran on, and
    the number of deviceProperties entries of every trace together."""
    own, listed = set(), 0
    for path in sorted(glob.glob(os.path.join(run_dir, "*.json.gz"))):
        doc = common.load_json(path)
        rank = doc["distributedInfo"]["rank"]
        for e in doc["traceEvents"]:
            if e.get("cat") == "kernel":
                own.add((rank, e["args"]["device"]))
        listed += len(doc["deviceProperties"])
    return own, listed


class OneDocument(ProfanTest):
    """show, report, diff: one JSON object; CSV one --section or an error."""

    def test_show_json_and_sections(self):
        d = shared(*DLRM)
        self.ingest_ok(d)
        r = self.profan("--format", "json", "show", "1")
        self.assertEqual(r.rc, 0, r.err)
        doc = json.loads(r.out)            # one document ("Extra data" before)
        # clocks: the ranks share collectives (issue 31)
        self.assertEqual(list(doc), ["run", "files", "devices", "steps",
                                     "clocks"])
        self.assertEqual([x["rank"] for x in doc["clocks"]], list(range(8)))
        self.assertEqual(len(doc["files"]),
                         len(glob.glob(os.path.join(d, "*.json.gz"))))
        # each rank's own device; every listed one on request
        own, listed = own_devices(d)
        self.assertEqual({(x["rank"], x["device"]) for x in doc["devices"]},
                         own)
        self.assertEqual(r.err, "profan: devices: %d of %d listed (each"
                         " rank's own GPU); --all-devices lists every GPU the"
                         " traces saw\n" % (len(own), listed))
        r = self.profan("--format", "json", "show", "1", "--all-devices")
        self.assertEqual(len(json.loads(r.out)["devices"]), listed)
        # CSV: one section or a clear usage error
        r = self.profan("--format", "csv", "show", "1")
        self.assertEqual(r.rc, 2)
        self.assertEqual(r.err.split("\n")[0], "profan: --format csv prints"
                         " one table: add --section NAME (run, files,"
                         " devices, steps, clocks)")
        self.assertEqual(r.out, "")
        r = self.profan("--format", "csv", "show", "1", "--section", "files")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(len(r.rows()), len(doc["files"]))
        r = self.profan("show", "1", "--section", "nope")
        self.assertEqual(r.rc, 2)
        self.assertEqual(r.err.split("\n")[0], "profan: no section 'nope'"
                         " (sections: run, files, devices, steps, clocks)")
        # runs is one table: one JSON array
        r = self.profan("--format", "json", "runs")
        self.assertEqual([x["id"] for x in json.loads(r.out)], [1])

    def test_report_and_diff_json(self):
        self.ingest_ok(shared("traces", "hta-compare-base.json.gz"))
        self.ingest_ok(shared("traces", "hta-compare-test.json.gz"))
        r = self.profan("--format", "json", "report", "2")
        self.assertEqual(r.rc, 0, r.err)
        doc = json.loads(r.out)
        self.assertEqual(list(doc), ["summary", "findings"])
        self.assertEqual(doc["summary"][0], {"item": "run", "value": "2 "
                         "(hta-compare-test)"})
        r = self.profan("--format", "csv", "report", "2")
        self.assertEqual(r.rc, 2)
        self.assertEqual(r.err.split("\n")[0], "profan: --format csv prints"
                         " one table: add --section NAME (summary, findings)")
        r = self.profan("--format", "csv", "report", "2", "--section",
                        "summary")
        self.assertEqual(r.rows()[0], {"item": "run",
                                       "value": "2 (hta-compare-test)"})
        r = self.profan("--format", "json", "diff", "1", "2")
        self.assertEqual(r.rc, 0, r.err)
        doc = json.loads(r.out)
        self.assertEqual(list(doc), ["metrics", "categories", "kernels"])
        self.assertIn("step_time_median_ms",
                      [m["metric"] for m in doc["metrics"]])
        # --by gives that one table, as `profan query` does
        r = self.profan("--format", "json", "diff", "1", "2", "--by",
                        "kernel")
        self.assertEqual(json.loads(r.out), doc["kernels"])
        r = self.profan("--format", "csv", "diff", "1", "2")
        self.assertEqual(r.rc, 2)
        self.assertIn("add --by", r.err)

    def test_queries_format(self):
        want = {}
        for path in sorted(glob.glob(os.path.join(common.ROOT, "queries",
                                                  "*.sql"))):
            name, desc = None, []
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.startswith("-- name:"):
                        name = line.split(":", 1)[1].strip()
                    elif line.startswith("-- description:"):
                        desc.append(line.split(":", 1)[1].strip())
            want[name] = " ".join(desc)
        r = self.profan("--format", "json", "queries")
        self.assertEqual(r.rc, 0, r.err)
        got = json.loads(r.out)
        self.assertEqual([q["name"] for q in got], sorted(want))
        for q in got:
            self.assertEqual(re.sub(r"\s+", " ", q["description"]),
                             re.sub(r"\s+", " ", want[q["name"]]))
        r = self.profan("--format", "csv", "queries")
        self.assertEqual([q["name"] for q in r.rows()], sorted(want))

    def test_descriptions_capitalised(self):
        r = self.profan("queries")
        self.assertEqual(r.rc, 0, r.err)
        lines = [l for l in r.out.split("\n") if l.strip()]
        self.assertGreater(len(lines), 30)
        for line in lines:
            desc = line[23:]
            self.assertTrue(desc[:1].isupper() or desc[:1].isdigit(), line)


class Width(ProfanTest):
    """Cut only to fit a terminal (or --width), never when piped."""

    def setUp(self):
        super().setUp()
        self.ingest_fixture(shared(*DLRM))
        doc = common.load_json(glob.glob(os.path.join(shared(*DLRM),
                                                      "*.json.gz"))[0])
        self.longest = max((e["name"] for e in doc["traceEvents"]
                            if e.get("cat") == "kernel"), key=len)
        self.assertGreater(len(self.longest), 120)

    def test_not_a_terminal_never_cut(self):
        r = self.profan("query", "top-kernels", "--limit", "1000")
        self.assertEqual(r.rc, 0, r.err)
        self.assertIn(self.longest, r.out)
        self.assertNotIn("\u2026", r.out)
        self.assertEqual(r.err, "")

    def test_terminal_width_and_notice(self):
        rc, out, err = run_in_pty(["--db", self.db, "query", "top-kernels"],
                                  120)
        self.assertEqual(rc, 0, err)
        lines = out.rstrip("\n").split("\n")
        self.assertGreater(len(lines), 3)
        for line in lines:
            self.assertLessEqual(len(line), 120, line)
        self.assertIn("\u2026", out)
        # different kernels still read differently (the middle is cut)
        shown = table_rows(out)
        full = self.query("top-kernels")
        self.assertEqual(len(shown), len(full))
        self.assertEqual(len({(x["kind"], x["name"]) for x in shown}),
                         len({(x["kind"], x["name"]) for x in full}))
        self.assertRegex(err, r"^profan: \d+ cells? cut at \u2026 to fit 120"
                         r" columns \(name\); --no-truncate or --width N to"
                         r" change\n$")
        rc, out, err = run_in_pty(["--db", self.db, "--no-truncate", "query",
                                   "top-kernels", "--limit", "1000"], 120)
        self.assertIn(self.longest, out)
        self.assertEqual(err, "")

    def test_width_option(self):
        r = self.profan("--width", "110", "query", "top-kernels")
        self.assertEqual(r.rc, 0, r.err)
        widths = [len(l) for l in r.out.rstrip("\n").split("\n")]
        self.assertEqual(max(widths), 110)
        self.assertIn("to fit 110 columns (name)", r.err)
        # numbers are never cut: a line that cannot fit stays whole there
        r = self.profan("--width", "40", "query", "top-kernels")
        first = table_rows(r.out)[0]
        want = self.query("top-kernels")[0]
        self.assertEqual(first["count"], want["count"])
        for bad in ("x", "5", ""):
            r = self.profan("--width", bad, "runs")
            self.assertEqual(r.rc, 2)
            self.assertEqual(r.err.split("\n")[0], "profan: --width needs a"
                             " number of columns >= 20, got '%s'" % bad)


class EmptyResults(ProfanTest):

    def test_empty_result_says_why(self):
        self.ingest_ok(shared("traces", "hta-compare-base.json.gz"))
        r = self.profan("query", "memory-summary")
        self.assertEqual(r.rc, 0)
        self.assertEqual(r.err, "profan: run 1 has no memory snapshot (query"
                         " 'memory-summary')\n")
        r = self.profan("query", "fr-hang")
        self.assertEqual(r.err, "profan: run 1 has no flight-recorder dump"
                         " (query 'fr-hang')\n")
        self.ingest_ok(shared("snapshots", "tomi-small.pickle"))
        r = self.profan("query", "top-kernels")
        self.assertEqual(r.err, "profan: run 2 has no trace with GPU kernels"
                         " (query 'top-kernels')\n")
        # a result with rows says nothing
        r = self.profan("query", "memory-summary")
        self.assertEqual(r.err, "")


class Numbers(ProfanTest):

    def test_bytes_in_diff_memory_and_metrics(self):
        self.ingest_ok(shared("snapshots", "tomi-small.pickle"))
        self.ingest_ok(shared("snapshots", "cs336-fullstep-2025.pickle"))
        raw = self.profan("--format", "csv", "diff", "1", "2", "--by",
                          "memory").rows()
        self.assertGreater(len(raw), 2)
        r = self.profan("diff", "1", "2", "--by", "memory")
        self.assertEqual(r.rc, 0, r.err)
        shown = table_rows(r.out.split("\n", 1)[1])
        self.assertEqual([s["metric"] for s in shown],
                         [x["metric"] for x in raw])
        for s, x in zip(shown, raw):
            if x["metric"].endswith("_bytes"):
                for col in ("a", "b", "delta"):
                    self.assertEqual(s[col], human_bytes(x[col]), (col, x))
            else:
                self.assertNotIn("B", s["a"])

    def test_memcpy_bandwidth_not_integer(self):
        path = shared("traces", "hta-compare-base.json.gz")
        self.ingest_ok(path)
        by = {}
        for e in common.events(path):
            if e.get("cat") == "gpu_memcpy" and "bytes" in e.get("args", {}):
                b = by.setdefault(e["name"], [0, 0.0])
                b[0] += e["args"]["bytes"]
                b[1] += e["dur"] * 1000.0          # us -> ns
        self.assertTrue(by)
        rows = [x for x in self.query("memcpy") if x["kind"] == "memcpy"]
        self.assertEqual(len(rows), len(by))
        for x in rows:
            name = [n for n in by if x["direction"] in n and x["src"] in n]
            self.assertEqual(len(name), 1, x)
            b, ns = by[name[0]]
            self.assertAlmostEqual(float(x["gbps"]), b / ns, delta=0.0011)
        self.assertTrue(any(float(x["gbps"]) != int(float(x["gbps"]))
                            for x in rows))

    def test_time_units_and_ranking_views(self):
        path = shared("traces", "hta-compare-base.json.gz")
        self.ingest_ok(path)
        db = sqlite3.connect(self.db)      # the stock SQLite, not profan
        units = {(t, c): u for t, c, u in db.execute(
            "SELECT table_name, column_name, unit FROM column_unit")}
        cols = [(t, c) for (t,) in db.execute(
            "SELECT name FROM sqlite_schema WHERE type IN ('table','view')"
            " AND name NOT LIKE 'sqlite%'")
            for (_, c, *_) in db.execute("SELECT * FROM pragma_table_info(?)",
                                         (t,))]
        times = [(t, c) for t, c in cols if c in ("ts", "dur")]
        self.assertGreater(len(times), 20)
        for k in times:
            self.assertEqual(units.get(k), "ns", k)
        self.assertEqual(units[("kernel", "dur")], "ns")
        self.assertEqual(units[("gpu_mem_op", "bytes")], "bytes")
        # kernel.dur is the trace's µs times 1000
        first = min((e for e in common.events(path)
                     if e.get("cat") == "kernel"), key=lambda e: e["ts"])
        (dur,) = db.execute("SELECT dur FROM kernel ORDER BY ts LIMIT 1") \
            .fetchone()
        self.assertEqual(dur, round(first["dur"] * 1000))
        # views that rank keep their order without an ORDER BY of the user
        tot = [t for (t,) in db.execute("SELECT total_ns FROM top_kernels"
                                        " WHERE run_id = 1")]
        self.assertGreater(len(tot), 5)
        self.assertEqual(tot, sorted(tot, reverse=True))
        db.close()


class IngestNotices(ProfanTest):

    def test_file_given_twice_loaded_once(self):
        d = shared(*DLRM)
        f0 = sorted(glob.glob(os.path.join(d, "worker0_*.json.gz")))[0]
        n0 = sum(1 for e in common.events(f0) if e.get("cat") == "kernel")
        r = self.ingest_ok(d, f0)
        self.assertIn("profan: %s: given twice (also as %s); loaded once\n"
                      % (f0, os.path.join(d, os.path.basename(f0))), r.err)
        self.assertIn("(duplicate files loaded once, see above)", r.err)
        got = self.sql("SELECT count(*) AS n FROM kernel WHERE rank = 0")
        self.assertEqual(int(got[0]["n"]), n0)
        # a copy under another name: the same content, loaded once
        cp = os.path.join(self.tmp.name, "copy.json.gz")
        with open(f0, "rb") as a, open(cp, "wb") as b:
            b.write(a.read())
        r = self.profan("ingest", "--name", "x", f0, cp)
        self.assertEqual(r.rc, 0, r.err)
        self.assertIn("profan: %s: same content as %s; loaded once\n"
                      % (cp, f0), r.err)
        got = self.sql("SELECT count(*) AS n FROM kernel WHERE run_id = 2")
        self.assertEqual(int(got[0]["n"]), n0)

    def test_rm_all_or_nothing(self):
        self.ingest_ok(shared("traces", "hta-compare-base.json.gz"),
                       extra=("--name", "a"))
        self.ingest_ok(shared("traces", "hta-compare-test.json.gz"),
                       extra=("--name", "b"))
        self.assertEqual(self.profan("baseline", "set", "main", "a").rc, 0)
        before = self.sql("SELECT id, name FROM run ORDER BY id")
        r = self.profan("rm", "a", "b", "999")
        self.assertEqual(r.rc, 2)
        self.assertEqual(r.err, "profan: no run '999' (give an id, a name, or"
                         " 'latest'; 'profan runs' lists them)\nprofan:"
                         " nothing removed (1 of 3 RUNs not found or"
                         " ambiguous)\n")
        self.assertEqual(self.sql("SELECT id, name FROM run ORDER BY id"),
                         before)
        r = self.profan("rm", "a", "b")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(r.err, "profan: removed run 1 (a) and its baseline"
                         " 'main'\nprofan: removed run 2 (b)\n")
        self.assertEqual(self.sql("SELECT id FROM run"), [])
        self.assertEqual(self.sql("SELECT name FROM baseline"), [])

    def test_name_taken_and_replace(self):
        a = shared("traces", "hta-compare-base.json.gz")
        b = shared("traces", "hta-compare-test.json.gz")
        self.ingest_ok(a, extra=("--name", "nightly"))
        r = self.ingest_ok(b, extra=("--name", "nightly"))
        self.assertIn("profan: the name 'nightly' is taken by run 1: this run"
                      " is named 'nightly-2' (--replace replaces run 1)\n",
                      r.err)
        self.assertEqual(self.profan("baseline", "set", "main", "1").rc, 0)
        r = self.ingest_ok(b, extra=("--name", "nightly", "--replace"))
        self.assertIn("profan: --replace: removed run 1 (same content or"
                      " name)\n", r.err)
        self.assertIn("profan: --replace: removed run 2 (same content or"
                      " name)\n", r.err)
        self.assertIn("profan: --replace: baseline 'main' of the removed run"
                      " removed too (set it again with 'profan baseline"
                      " set')\n", r.err)
        self.assertEqual([x["name"] for x in self.sql(
            "SELECT name FROM run")], ["nightly"])

    def test_waits_for_another_writer(self):
        a = shared("traces", "hta-compare-base.json.gz")
        b = shared("traces", "hta-compare-test.json.gz")
        self.ingest_ok(a)
        lock = sqlite3.connect(self.db, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        p = subprocess.Popen([common.PROFAN, "--db", self.db, "ingest", b],
                             stderr=subprocess.PIPE, text=True,
                             stdin=subprocess.DEVNULL)
        first = p.stderr.readline()
        self.assertEqual(first, "profan: waiting for another writer to finish"
                         " (the database is locked)\u2026\n")
        time.sleep(1.5)
        lock.execute("ROLLBACK")
        lock.close()
        rest = p.stderr.read()
        self.assertEqual(p.wait(timeout=common.TIMEOUT), 0, rest)
        m = re.search(r"the other writer finished after (\d+\.\d) s\n", rest)
        self.assertIsNotNone(m, rest)
        self.assertGreaterEqual(float(m.group(1)), 1.4)
        m = re.search(r"ingested run 2: .*, (\d+\.\d\d) s, ", rest)
        self.assertIsNotNone(m, rest)
        self.assertLess(float(m.group(1)), 1.0)     # the wait left out
        # --timeout gives up, nothing stored
        lock = sqlite3.connect(self.db, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        r = self.profan("ingest", "--timeout", "0.5", "--name", "c", b)
        lock.execute("ROLLBACK")
        lock.close()
        self.assertEqual(r.rc, 7)
        self.assertEqual(r.err.split("\n")[-2], "profan: %s: the database"
                         " is still locked by another writer after 0.5 s"
                         " (--timeout); nothing written" % self.db)
        self.assertEqual(len(self.sql("SELECT id FROM run")), 2)

    def test_ctrl_c_during_first_ingest(self):
        big = os.path.join(self.tmp.name, "big.json")
        with open(big, "w") as f:
            f.write('{"traceEvents": [')
            for i in range(400000):
                f.write('%s{"ph":"X","cat":"kernel","name":"k%d","pid":0,'
                        '"tid":7,"ts":%d,"dur":3,"args":{"device":0,'
                        '"stream":7,"correlation":%d}}'
                        % ("," if i else "", i % 50, 10 * i, i))
            f.write("]}")
        db = os.path.join(self.tmp.name, "new.db")
        p = subprocess.Popen([common.PROFAN, "--db", db, "ingest", "--threads",
                              "1", big], stderr=subprocess.PIPE, text=True,
                             stdin=subprocess.DEVNULL)
        tmp = "%s.new-%d" % (db, p.pid)
        t0 = time.time()
        while not os.path.exists(tmp) and time.time() - t0 < common.TIMEOUT:
            time.sleep(0.002)
        self.assertTrue(os.path.exists(tmp))
        p.send_signal(signal.SIGINT)
        err = p.stderr.read()
        rc = p.wait(timeout=common.TIMEOUT)
        self.assertEqual(rc, 128 + signal.SIGINT, err)
        self.assertEqual(err, "profan: interrupted, nothing written\n")
        left = [n for n in os.listdir(self.tmp.name) if n.startswith("new.db")]
        self.assertEqual(left, [])


class Messages(ProfanTest):

    def test_db_option_without_value(self):
        r = common.run("--db", "x.db", "--db")
        self.assertEqual(r.rc, 2)
        self.assertEqual(r.err.split("\n")[0], "profan: option --db needs a"
                         " value (a database PATH)")
        r = common.run("--db", "--format", "json", "runs")
        self.assertEqual(r.rc, 2)
        self.assertEqual(r.err.split("\n")[0], "profan: option --db needs a"
                         " value (a database PATH)")

    def test_directory_messages(self):
        t = shared("traces", "hta-compare-base.json.gz")
        f = os.path.join(self.tmp.name, "plain")
        open(f, "w").close()
        r = common.run("ingest", t, db=os.path.join(f, "x.db"))
        self.assertEqual(r.rc, 7)
        self.assertEqual(r.err, "profan: %s/x.db: cannot create database:"
                         " %s is not a directory\n" % (f, f))
        missing = os.path.join(self.tmp.name, "missing")
        r = common.run("ingest", t, db=os.path.join(missing, "x.db"))
        self.assertEqual(r.err, "profan: %s/x.db: cannot create database:"
                         " no directory %s\n" % (missing, missing))
        if os.geteuid() != 0:          # root writes anywhere
            ro = os.path.join(self.tmp.name, "ro")
            os.mkdir(ro, 0o555)
            r = common.run("ingest", t, db=os.path.join(ro, "x.db"))
            self.assertEqual(r.err, "profan: %s/x.db: cannot create"
                             " database: directory %s is not writable"
                             " (Permission denied)\n" % (ro, ro))

    def test_ingest_help_lists_every_kind(self):
        r = common.run("ingest", "--help")
        self.assertEqual(r.rc, 0)
        for kind in ("trace", "memory snapshot", "NCCL log",
                     "flight recorder", "--timeout"):
            self.assertIn(kind, r.out)

    def test_nccl_warning_counts_add_up(self):
        log = shared("nccl", "ddp-2rank-interleaved.log")
        r = self.ingest_ok(log)
        m = re.search(r": (\d+) records? skipped or repaired \(first at \d+:"
                      r" (\d+) cut, (\d+) malformed, (\d+) over-long lines?\)",
                      r.err)
        self.assertIsNotNone(m, r.err)
        n, parts = int(m.group(1)), [int(x) for x in m.groups()[1:]]
        self.assertEqual(sum(parts), n)
        self.assertEqual(int(self.sql("SELECT warnings FROM run_file")[0]
                             ["warnings"]), n)
        r = common.run("ingest", "--strict", log,
                       db=os.path.join(self.tmp.name, "strict.db"))
        self.assertEqual(r.rc, 6)
        self.assertRegex(r.err, r"\(--strict: %d warnings?\)\n$" % n)
        m2 = re.search(r"(\d+) cut, (\d+) malformed, (\d+) over-long", r.err)
        self.assertEqual([int(x) for x in m2.groups()], parts)

    def test_step_breakdown_labels_time_outside_steps(self):
        self.ingest_ok(shared(*DLRM))
        rows = self.query("step-breakdown")
        self.assertEqual({x["span"] for x in rows if x["step"] == ""},
                         {"outside steps"})
        self.assertEqual({x["span"] for x in rows if x["step"] != ""},
                         {"step"})
        self.assertEqual(len([x for x in rows if x["step"] == ""]), 8)
