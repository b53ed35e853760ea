"""test_hostile_inputs.py — every input kind against every kind of damage.

The focus of this file is issue #7's "bad input, systematically": for each
input kind profan reads (Kineto trace JSON, CUDA memory snapshot pickle,
flight-recorder dump as pickle and as JSON, NCCL log) a small valid input
is written here and then damaged: truncation at 50 offsets, 200 seeded
random byte flips, wrong JSON/pickle types in every field, huge numbers,
negative durations, NaN / Infinity, invalid UTF-8, unescaped quotes,
1,000-deep nesting, a 10^6-byte string, an empty file, an unreadable file
in a directory.  Every attempt must end with exit 0 or 1 within the
timeout (never a signal or a sanitizer report); exit 1 must print exactly
one line "profan: FILE...: message" and leave the database byte-for-byte
as it was; exit 0 must count what it repaired in run_file.warnings, and
--strict must turn each of those warnings into an error.  Each case
asserts the exact message or the exact warning count.

No case is kept as an expectedFailure: run_all.py fails on an unexpected
success, and under CI=true on any expected failure (a known bug must be
fixed, not parked).
"""
import concurrent.futures
import json
import math
import os
import pickle
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import common
from common import ProfanTest, local

FAST_TMP = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


# Under a sanitizer build (common.sanitized()) the flip loops run 100
# seeded sets instead of 200 and the type matrices use 4 representative
# types (null, negative, string, list) instead of all; the gcc build runs
# everything.
sanitized = common.sanitized


def some(names):
    """The types a matrix uses: all, or 4 under a sanitizer build."""
    keep = ("null", "None", "negative", "string", "str", "list")
    return [n for n in names if not sanitized() or n in keep]
SAN = re.compile(r"Sanitizer|runtime error:|LeakSanitizer")
T0 = 1_700_000_000_000_000          # us since the epoch

# ------------------------------------------------------------ base inputs


def trace_doc():
    """A trace with a CPU op, its launch and its kernel (linked)."""
    return {"traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
         "ts": 100, "dur": 50,
         "args": {"External id": 3, "Input Dims": [[2, 3], [3, 4]],
                  "Input type": ["float", "float"]}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
         "pid": 1, "tid": 1, "ts": 110, "dur": 5,
         "args": {"correlation": 9, "External id": 3, "cbid": 211}},
        {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7,
         "ts": 120, "dur": 20,
         "args": {"correlation": 9, "External id": 3, "grid": [1, 2, 3],
                  "block": [4, 5, 6], "stream": 7, "device": 0}}]}


def frame(name, line):
    return {"name": name, "filename": "/work/train.py", "line": line}


def snapshot_doc():
    """Device 0: one 2 MiB segment with an allocated and a free block, and
    a trace of alloc / free_requested / free_completed."""
    base = 0x7f0000000000
    frames = [frame("forward", 10), frame("train_step", 20)]
    return {
        "segments": [{
            "device": 0, "address": base, "total_size": 2 << 20,
            "allocated_size": 512, "active_size": 512,
            "requested_size": 500, "stream": 0, "segment_type": "large",
            "blocks": [
                {"address": base, "size": 512, "requested_size": 500,
                 "state": "active_allocated", "frames": frames},
                {"address": base + 512, "size": (2 << 20) - 512,
                 "state": "inactive"}]}],
        "device_traces": [[
            {"action": "alloc", "addr": base, "size": 512, "stream": 0,
             "time_us": T0, "frames": frames},
            {"action": "alloc", "addr": base + 4096, "size": 1024,
             "stream": 0, "time_us": T0 + 5, "frames": frames},
            {"action": "free_requested", "addr": base + 4096, "size": 1024,
             "stream": 0, "time_us": T0 + 9, "frames": frames},
            {"action": "free_completed", "addr": base + 4096, "size": 1024,
             "stream": 0, "time_us": T0 + 10, "frames": frames}]]}


def fr_entry(rid, seq, state):
    e = {"frames": [frame("all_reduce", 1)], "record_id": rid, "pg_id": 0,
         "process_group": ["0", "default_pg"], "collective_seq_id": seq,
         "p2p_seq_id": 0, "op_id": seq, "profiling_name": "nccl:all_reduce",
         "time_created_ns": T0 * 1000 + rid, "input_sizes": [[1024]],
         "output_sizes": [[1024]], "input_dtypes": ["Float"],
         "output_dtypes": ["Float"], "state": state,
         "time_discovered_started_ns": T0 * 1000 + rid + 10,
         "time_discovered_completed_ns": T0 * 1000 + rid + 20,
         "retired": True, "timeout_ms": 600000, "is_p2p": False,
         "duration_ms": 0.4}
    return e


def fr_doc():
    return {"version": "2.4", "nccl_version": "2.21.5",
            "pg_config": {"0": {"name": "0", "desc": "default_pg",
                                "ranks": "[0, 1]"}},
            "pg_status": {"0": {"last_enqueued_collective": 2,
                                "last_started_collective": 2,
                                "last_completed_collective": 2}},
            "entries": [fr_entry(100, 1, "completed"),
                        fr_entry(101, 2, "completed")]}


def fr_json_doc():
    """The JSON variant: no frames, 0 for absent times."""
    d = fr_doc()
    for e in d["entries"]:
        del e["frames"]
    return d


def nccl_text():
    with open(local("nccl", "p2p-fp8-2.24.log")) as f:
        return f.read()


def pk(doc):
    return pickle.dumps(doc, protocol=2)


# (file name, bytes) of the valid base input of each kind
def base_inputs():
    return {
        "trace": ("t.json", json.dumps(trace_doc()).encode()),
        "snapshot": ("snap.pickle", pk(snapshot_doc())),
        "fr_pickle": ("nccl_trace_rank_0", pk(fr_doc())),
        "fr_json": ("nccl_trace_rank_0.json", json.dumps(fr_json_doc()).encode()),
        "nccl": ("nccl.log", nccl_text().encode()),
    }


# ---------------------------------------------------------------- harness

class Hostile(ProfanTest):
    """A database with one good run; every attempt starts from a copy of
    it, so "unchanged" is a byte comparison with that copy."""

    base_db = None
    base_tmp = None
    messages_are_utf8 = True

    def setUp(self):
        # thousands of small ingests: on tmpfs when there is one, so that
        # SQLite's fsyncs do not dominate the suite's time
        self.tmp = tempfile.TemporaryDirectory(dir=FAST_TMP)
        self.db = os.path.join(self.tmp.name, "test.db")

    @classmethod
    def setUpClass(cls):
        cls.base_tmp = tempfile.TemporaryDirectory(dir=FAST_TMP)
        cls.base_db = os.path.join(cls.base_tmp.name, "base.db")
        r = common.run("ingest", "--quiet", "--name", "good",
                       local("sample-run"), db=cls.base_db)
        assert r.rc == 0, r.err
        with open(cls.base_db, "rb") as f:
            cls.base_bytes = f.read()

    @classmethod
    def tearDownClass(cls):
        cls.base_tmp.cleanup()

    def write(self, name, data):
        p = os.path.join(self.tmp.name, name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def attempt(self, name, data, what, strict=False, slot=None):
        """Ingest data as file `name` into a fresh copy of the base
        database (self.db; a second one, self.db + "-strict", for --strict
        so that the first keeps the run for the caller to inspect); check
        the invariants; return (Result, path).  `slot` gives the attempt
        its own subdirectory, so that attempts can run in parallel
        (attempt_all)."""
        if slot is not None:
            d = os.path.join(self.tmp.name, "s%d" % slot)
            os.makedirs(d, exist_ok=True)
            name = os.path.join(d, name)
            db = os.path.join(d, "t.db")
        else:
            db = self.db + ("-strict" if strict else "")
        path = self.write(name, data) if data is not None else name
        shutil.copyfile(self.base_db, db)
        for s in ("-wal", "-shm"):
            if os.path.exists(db + s):
                os.remove(db + s)
        args = ["ingest", "--name", "bad"] + (["--strict"] if strict else [])
        try:
            p = subprocess.run([common.PROFAN, "--db", db] + args + [path],
                               capture_output=True, timeout=common.TIMEOUT,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            self.fail("%s: profan hung" % what)
        r = common.Result(p.returncode, p.stdout.decode(errors="replace"),
                          p.stderr.decode(errors="replace"))
        r.db = db
        if self.messages_are_utf8:
            p.stderr.decode()     # raises on bytes echoed from the input
        self.assertIn(r.rc, (0, 6), "%s: exit %d\n%s" % (what, r.rc, r.err))
        self.assertNotRegex(r.err, SAN, what)
        if r.rc == 6:
            lines = r.err.splitlines()
            self.assertEqual(len(lines), 1, "%s: %s" % (what, r.err))
            # "profan: FILE:..." (a file in a directory for a directory)
            self.assertRegex(lines[0], r"^profan: %s(/[^:]+)?:" % re.escape(path),
                             "%s: %s" % (what, r.err))
            with open(db, "rb") as f:
                self.assertEqual(f.read(), self.base_bytes, what)
            self.assertFalse(os.path.exists(db + "-wal")
                             and os.path.getsize(db + "-wal") > 0, what)
        return r, path

    def error(self, name, data, what, strict=False):
        """The attempt must fail; returns the message after "FILE:"."""
        r, path = self.attempt(name, data, what, strict)
        self.assertEqual(r.rc, 6, "%s: expected an error\n%s" % (what, r.err))
        return r.err.strip()[len("profan: %s:" % path):]

    def warned(self, name, data, what, want, strict=True):
        """The attempt must succeed with exactly `want` warnings on the new
        run's file (run_file.warnings); then (unless strict is False: the
        big matrices check --strict once per field, to keep the suite's
        time down) --strict must refuse it."""
        r, path = self.attempt(name, data, what)
        self.assertEqual(r.rc, 0, "%s: %s" % (what, r.err))
        got = self.sql("SELECT sum(f.warnings) AS n FROM run_file f JOIN run r"
                       " ON r.id = f.run_id WHERE r.name = 'bad'")
        self.assertEqual(int(got[0]["n"] or 0), want, "%s: %s" % (what, r.err))
        if want > 0:
            self.assertIn(" skipped or repaired (first at ", r.err, what)
        if want > 0 and strict:
            msg = self.error(name, data, what + " --strict", strict=True)
            self.assertIn("(--strict: %d warning%s)" % (want, "" if want == 1 else "s"),
                          msg, what)
        return r

    def attempt_all(self, name, inputs, post=None):
        """attempt() on each (what, data) of inputs, several at a time (one
        per CPU, each in its own slot directory); returns [(Result, path)]
        in order.  The invariants are checked in the worker threads (an
        assertion raises there and is re-raised here by .result()).  The
        slot's database is reused by later inputs: post(r), when given,
        runs in the worker right after the attempt and its value is stored
        in r.post."""
        jobs = max(1, min(8, os.cpu_count() or 1))

        def one(what, data, slot):
            r, path = self.attempt(name, data, what, False, slot)
            r.post = post(r) if post else None
            return r, path

        with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
            out = []
            batch = []
            for i, (what, data) in enumerate(inputs):
                batch.append(ex.submit(one, what, data, i % jobs))
                if len(batch) == jobs:
                    out += [f.result() for f in batch]
                    batch = []
            out += [f.result() for f in batch]
        return out

    # generic damage, used by each kind's test class
    def truncations(self, kind, check, post=None):
        name, data = base_inputs()[kind]
        n = len(data)
        cuts = sorted(set([0, 1, 2, n - 1] + [n * k // 47 for k in range(1, 47)]))[:50]
        self.assertEqual(len(cuts), 50)
        results = self.attempt_all(name, [("cut at %d" % c, data[:c]) for c in cuts],
                                   post)
        for c, (r, path) in zip(cuts, results):
            with self.subTest(cut=c):
                check(c, r, path, data)

    def flips(self, kind, count=200, seed=7, check=None, post=None):
        """count seeded sets of 1-4 flipped bytes; {exit status: count}.
        check(data, r), when given, runs on every attempt that exited 0
        (post(r) as in attempt_all)."""
        if sanitized():
            count //= 2
        name, data = base_inputs()[kind]
        rnd = random.Random(seed)
        inputs = []
        for k in range(count):
            b = bytearray(data)
            for _ in range(rnd.randint(1, 4)):
                b[rnd.randrange(len(b))] = rnd.randrange(256)
            inputs.append(("flip set %d" % k, bytes(b)))
        outcomes = {0: 0, 6: 0}
        for (what, data), (r, _) in zip(inputs, self.attempt_all(name, inputs, post)):
            outcomes[r.rc] += 1
            if check and r.rc == 0:
                with self.subTest(flips=what):
                    check(data, r)
        return outcomes


LINE_ERR = re.compile(r"^(\d+): (.+)$")


# ------------------------------------------------------------------ traces

TYPES = {"null": None, "true": True, "int": 7, "negative": -1, "float": 1.5,
         "string": "x", "list": [], "object": {}, "nested": [1, [2]]}
EVENT_TABLE = {0: "cpu_op", 1: "runtime_call", 2: "kernel"}


def trace_bytes(doc):
    return json.dumps(doc).encode()


def event_offset(doc, i):
    """Byte offset of event i's "{" in json.dumps(doc)."""
    text = json.dumps(doc)
    pos = text.index("[") + 1
    for _ in range(i):
        pos = text.index("}, {\"ph\"", pos) + 3
    return pos


def wrong_type_outcome(key, tname):
    """What the parser must do with event key `key` holding a value of JSON
    type `tname` (the rules stated in README.md "Reliability")."""
    ok = {"ph": ("string",), "cat": ("string",), "name": ("string",),
          "pid": ("int", "negative", "float", "string"),
          "tid": ("int", "negative", "float", "string"),
          "ts": ("int", "negative", "float"), "dur": ("int", "float"),
          "args": ("object",)}
    if tname in ok[key]:
        return None, 0
    if key in ("ph", "cat"):
        return '"%s" of the wrong type (event skipped)' % key, 0
    if key in ("name", "pid", "tid", "args"):
        return '"%s" of the wrong type ignored' % key, 1
    if key == "ts":
        return 'event without a numeric "ts" skipped', 0
    if tname == "negative":
        return "negative duration clamped to 0", 1
    return 'event without "dur" given duration 0', 1


class TraceInputs(Hostile):

    def test_truncated_at_50_offsets(self):
        def check(c, r, path, data):
            msg = self.assertError(r, path)  # noqa
            self.assertEqual(msg, "0: empty file" if c == 0 else
                             "%d: truncated JSON: the file ends inside the trace" % c)
        self.truncations("trace", check)

    def assertError(self, r, path):
        self.assertEqual(r.rc, 6, r.err)
        return r.err.strip()[len("profan: %s:" % path):]

    def test_200_random_byte_flips(self):
        # an ingest that exits 0 stored exactly the events Python's json
        # reads from the same bytes (per table), or counted a repair when
        # Python cannot read them
        def stored(r):
            if r.rc or not common.run("--format", "csv", "sql", "SELECT id FROM run"
                                      " WHERE name = 'bad'", db=r.db).rows():
                return None          # failed, or the base content again
            return {t: int(common.run("--format", "csv", "sql",
                                      "SELECT count(*) AS n FROM %s x JOIN run r ON"
                                      " r.id = x.run_id WHERE r.name = 'bad'" % t,
                                      db=r.db).rows()[0]["n"])
                    for t in ("kernel", "cpu_op", "runtime_call")} | {
                "warnings": int(common.run("--format", "csv", "sql",
                                           "SELECT f.warnings AS n FROM run_file f JOIN"
                                           " run r ON r.id = f.run_id WHERE r.name ="
                                           " 'bad'", db=r.db).rows()[0]["n"])}

        def check(data, r):
            if r.post is None:       # a duplicate: the flips changed nothing
                self.assertEqual(data, base_inputs()["trace"][1])
                return
            try:
                doc = json.loads(data.decode("utf-8", errors="replace"), strict=False)
                evs = doc["traceEvents"]
                want = ref_counts(evs)
            except (ValueError, KeyError, TypeError):
                self.assertGreater(r.post["warnings"], 0)
                return
            self.assertEqual({t: r.post[t] for t in want}, want)
        out = self.flips("trace", check=check, post=stored)
        self.assertEqual(sum(out.values()), 100 if sanitized() else 200)
        self.assertGreater(out[0], 10)          # the check above did run

    def test_wrong_type_in_every_event_field(self):
        n = 0
        for i in range(3):
            for key in trace_doc()["traceEvents"][i]:
                for tname in some(TYPES):
                    v = TYPES[tname]
                    doc = trace_doc()
                    doc["traceEvents"][i][key] = v
                    msg, kept = wrong_type_outcome(key, tname)
                    what = "event %d %s=%s" % (i, key, tname)
                    with self.subTest(what=what):
                        r = self.warned("t.json", trace_bytes(doc), what,
                                        0 if msg is None else 1,
                                        strict=tname == "null")
                        if msg is not None:
                            self.assertIn("(first at byte %d: %s)" % (
                                event_offset(doc, i), msg), r.err, what)
                            rows = self.sql("SELECT count(*) AS n FROM %s t JOIN run r"
                                            " ON r.id = t.run_id WHERE r.name = 'bad'"
                                            % EVENT_TABLE[i])
                            self.assertEqual(int(rows[0]["n"]), kept, what)
                    n += 1
        self.assertEqual(n, 8 * 3 * len(some(TYPES)))

    def test_wrong_type_in_every_args_field(self):
        # args values are optional metadata: a value of the wrong type is
        # dropped like an absent key; the event is kept, nothing is counted
        for i in range(3):
            for key in trace_doc()["traceEvents"][i]["args"]:
                for tname in some(TYPES):
                    v = TYPES[tname]
                    doc = trace_doc()
                    doc["traceEvents"][i]["args"][key] = v
                    what = "event %d args.%s=%s" % (i, key, tname)
                    with self.subTest(what=what):
                        self.warned("t.json", trace_bytes(doc), what, 0,
                                    strict=False)
                        rows = self.sql("SELECT count(*) AS n FROM %s t JOIN run r"
                                        " ON r.id = t.run_id WHERE r.name = 'bad'"
                                        % EVENT_TABLE[i])
                        self.assertEqual(rows[0]["n"], "1", what)

    def test_huge_numbers(self):
        cases = [  # (key, JSON number text, expected first warning)
            ("ts", "1e308", 'event without a numeric "ts" skipped'),
            ("ts", str(2 ** 64), 'event without a numeric "ts" skipped'),
            ("ts", str(-2 ** 63 - 1), 'event without a numeric "ts" skipped'),
            ("ts", "4611686018427388", 'event without a numeric "ts" skipped'),
            ("dur", "1e308", 'event without "dur" given duration 0'),
            ("dur", str(2 ** 64), 'event without "dur" given duration 0'),
            ("dur", str(-2 ** 63 - 1), 'event without "dur" given duration 0'),
            ("dur", "140737488356", "duration over 39 hours set to 0"),
            ("pid", str(2 ** 64), '"pid" of the wrong type ignored'),
        ]
        for key, num, msg in cases:
            doc = trace_doc()
            doc["traceEvents"][2][key] = 424242
            raw = trace_bytes(doc).replace(b"424242", num.encode())
            with self.subTest(key=key, num=num):
                r = self.warned("t.json", raw, "%s=%s" % (key, num), 1)
                self.assertIn(": %s)" % msg, r.err)
        # the largest accepted values still load, without overflow
        doc = trace_doc()
        doc["traceEvents"][2]["ts"] = 4611686018427387
        doc["traceEvents"][2]["dur"] = 140737488355
        self.warned("t.json", trace_bytes(doc), "largest ts and dur", 0)
        got = self.sql("SELECT k.ts, k.dur FROM kernel k JOIN run r ON r.id = k.run_id"
                       " WHERE r.name = 'bad'")
        self.assertEqual(got, [{"ts": "4611686018427387000", "dur": "140737488355000"}])

    def test_negative_durations(self):
        doc = trace_doc()
        for e in doc["traceEvents"]:
            e["dur"] = -3
        r = self.warned("t.json", trace_bytes(doc), "all negative", 3)
        self.assertIn("(first at byte %d: negative duration clamped to 0)"
                      % event_offset(doc, 0), r.err)
        got = self.sql("SELECT k.dur FROM kernel k JOIN run r ON r.id = k.run_id"
                       " WHERE r.name = 'bad'")
        self.assertEqual(got, [{"dur": "0"}])

    def test_nan_and_infinity(self):
        base = trace_bytes(trace_doc())
        at = base.index(b'"dur": 20') + len(b'"dur": ')
        for tok, msg in (("NaN", "invalid char in json text."),
                         ("Infinity", "invalid char in json text."),
                         ("-Infinity", "malformed number, a digit is required after the minus sign.")):
            raw = base.replace(b'"dur": 20', b'"dur": ' + tok.encode())
            with self.subTest(token=tok):
                got = self.error("t.json", raw, tok)
                self.assertEqual(got, "%d: invalid JSON: %s" % (at + (tok[0] == "-"), msg))
        for s in ("NaN", "Infinity", "-Infinity", "nan", "inf"):
            for key, msg, n in (("ts", 'event without a numeric "ts" skipped', 1),
                                ("dur", 'event without "dur" given duration 0', 1)):
                doc = trace_doc()
                doc["traceEvents"][2][key] = s
                with self.subTest(string=s, key=key):
                    r = self.warned("t.json", trace_bytes(doc), s, n)
                    self.assertIn(": %s)" % msg, r.err)

    def test_invalid_utf8_in_names(self):
        for bad in (b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf5\x80\x80\x80", b"\xc0\xaf"):
            raw = trace_bytes(trace_doc()).replace(b'"gemm"', b'"ge' + bad + b'mm"')
            with self.subTest(bad=bad):
                r = self.warned("t.json", raw, repr(bad), 1)
                self.assertIn("invalid UTF-8 in the name replaced by '?')", r.err)
                got = self.sql("SELECT s.text FROM kernel k JOIN string s ON s.id = k.name_id"
                               " JOIN run r ON r.id = k.run_id WHERE r.name = 'bad'")
                self.assertEqual(got, [{"text": "ge" + "?" * len(bad) + "mm"}])
        # valid multi-byte names are kept as they are, without a warning
        raw = trace_bytes(trace_doc()).replace(b'"gemm"', '"gémm€😀"'.encode())
        self.warned("t.json", raw, "valid UTF-8", 0)

    def test_unescaped_quote_in_name(self):
        raw = trace_bytes(trace_doc()).replace(b'"gemm"', b'"ge"mm"')
        at = raw.index(b'"ge"mm"') + 4
        self.assertEqual(self.error("t.json", raw, "quote"),
                         "%d: invalid JSON: invalid char in json text." % at)

    def test_1000_deep_nesting(self):
        doc = trace_doc()
        doc["traceEvents"][2]["args"]["deep"] = 424242
        text = trace_bytes(doc)
        raw = text.replace(b"424242", b"[" * 1000 + b"]" * 1000)
        # the value opens at depth 5 (object, traceEvents, event, args):
        # bracket 252 of the run is the 257th open container
        at = text.index(b"424242") + 251 + 1
        self.assertEqual(self.error("t.json", raw, "deep args"),
                         "%d: nesting deeper than 256 levels" % at)
        raw = b'{"traceEvents":' + b"[" * 1000 + b"]" * 1000 + b"}"
        self.assertEqual(self.error("t.json", raw, "deep events"),
                         "%d: nesting deeper than 256 levels" % (15 + 255))

    def test_million_byte_name(self):
        doc = trace_doc()
        doc["traceEvents"][2]["name"] = "n" * 10 ** 6
        self.warned("t.json", trace_bytes(doc), "long name", 0)
        got = self.sql("SELECT length(s.text) AS n FROM kernel k JOIN string s"
                       " ON s.id = k.name_id JOIN run r ON r.id = k.run_id"
                       " WHERE r.name = 'bad'")
        self.assertEqual(got, [{"n": str(10 ** 6)}])

    def test_empty_and_blank_files(self):
        self.assertEqual(self.error("t.json", b"", "empty"), "0: empty file")
        self.assertEqual(self.error("t.json", b" \n\t\n", "blank"), "0: empty file")


# -------------------------------------------------------------- NCCL logs

COLL = ("nodeB:2222:2222 [0] NCCL INFO AllReduce: opCount 4 sendbuff "
        "0x7f1200200000 recvbuff 0x7f1200200000 count 4096 datatype 7 op 0 "
        "root 0 comm 0x55d0c0ffee00 [nranks=2] stream 0x55d0c0ffee80")
VERSION = "nodeB:2222:2222 [0] NCCL INFO NCCL version 2.24.3+cuda12.4"
LAST_TOKEN = re.compile(r".* stream (0x[0-9a-f]+|\(nil\))$")


def nccl_log(*lines):
    return ("\n".join((VERSION,) + lines) + "\n").encode()


class NcclInputs(Hostile):

    def records(self):
        return int(self.sql("SELECT f.n_records AS n FROM run_file f JOIN run r"
                            " ON r.id = f.run_id WHERE r.name = 'bad'")[0]["n"])

    def malformed(self, data, what, records=1):
        """One malformed line, counted; the version line is a record."""
        r = self.warned("nccl.log", data, what, 1)
        self.assertIn("(first at 2: 0 cut, 1 malformed, 0 over-long lines)", r.err, what)
        self.assertEqual(self.records(), records, what)

    def test_truncated_at_50_offsets(self):
        def check(c, r, path, data):
            head = data[:c]
            if c == 0:
                self.assertEqual(r.err.strip(), "profan: %s:0: empty file" % path)
            elif b"NCCL INFO" not in head:
                self.assertEqual(r.err.strip(), "profan: %s: not a trace, memory "
                                 "snapshot or NCCL log" % path)
            else:
                self.assertEqual(r.rc, 0, r.err)
                tail = head[head.rfind(b"\n") + 1:].decode()
                cut = c < len(data) and data[c:c + 1] != b"\n"
                want = int(cut and ": opCount " in tail and not LAST_TOKEN.match(tail))
                # what is stored: every whole collective line before the
                # cut, and the cut one when it still ends with its stream
                whole = head.decode().split("\n")[:-1] + ([] if cut else [tail])
                colls = sum(1 for l in whole if ": opCount " in l)
                if cut and ": opCount " in tail and LAST_TOKEN.match(tail):
                    colls += 1
                self.assertEqual(r.post, (want, colls), (c, tail))

        def warnings(r):
            if r.rc:
                return None
            got = common.run("--format", "csv", "sql", "SELECT f.warnings AS n,"
                             " (SELECT count(*) FROM nccl_coll x WHERE x.run_id = r.id)"
                             " AS c FROM run_file f JOIN run r ON r.id = f.run_id"
                             " WHERE r.name = 'bad'", db=r.db).rows()
            return int(got[0]["n"]), int(got[0]["c"])
        self.truncations("nccl", check, warnings)

    def test_200_random_byte_flips(self):
        out = self.flips("nccl")
        self.assertEqual(sum(out.values()), 100 if sanitized() else 200)

    def test_wrong_type_in_every_field(self):
        fields = ["opCount 4", "sendbuff 0x7f1200200000", "recvbuff 0x7f1200200000",
                  "count 4096", "datatype 7", "op 0", "root 0",
                  "comm 0x55d0c0ffee00", "[nranks=2]", "stream 0x55d0c0ffee80"]
        values = ["zz", "1.5", "", "-5", "0x", "\"q\"", "nan", "inf", "[[[["]
        n = 0
        for f in fields:
            key = f.split(" ")[0] if " " in f else "[nranks="
            for v in values:
                new = key + v + "]" if key == "[nranks=" else key + " " + v
                line = COLL.replace(f, new)
                what = "%s -> %s" % (f, new)
                with self.subTest(what=what):
                    # "-5": ops, roots and datatypes are small integers that
                    # NCCL prints with %d; only a negative count is damage
                    if v == "-5" and key in ("op", "root", "datatype", "[nranks="):
                        self.warned("nccl.log", nccl_log(line), what, 0, strict=False)
                        self.assertEqual(self.records(), 2, what)
                    else:
                        self.malformed(nccl_log(line), what)
                n += 1
        self.assertEqual(n, 90)

    def test_huge_numbers(self):
        for f, v in (("count 4096", str(2 ** 64)), ("count 4096", str(-2 ** 63 - 1)),
                     ("count 4096", "1e308"), ("datatype 7", str(2 ** 31)),
                     ("opCount 4", "1" + "0" * 17),
                     ("comm 0x55d0c0ffee00", "0x1" + "0" * 16)):
            key = f.split(" ")[0]
            with self.subTest(field=f, value=v):
                self.malformed(nccl_log(COLL.replace(f, key + " " + v)), v)
        # the largest values that fit are kept exactly
        line = COLL.replace("count 4096", "count %d" % (2 ** 63 - 1)).replace(
            "comm 0x55d0c0ffee00", "comm 0xffffffffffffffff")
        self.warned("nccl.log", nccl_log(line), "largest", 0)
        self.assertEqual(self.records(), 2)

    def test_invalid_utf8_quotes_and_nesting_in_a_record(self):
        for bad in ("All\xffReduce", "All\"Reduce", "All" + "[" * 1000 + "Reduce"):
            data = nccl_log(COLL.replace("AllReduce", bad)).replace(
                b"\xc3\xbf", b"\xff")
            with self.subTest(op=bad[:12]):
                self.malformed(data, repr(bad[:12]))

    def test_interleaved_and_cut_lines(self):
        r = self.warned("nccl.log", nccl_log(COLL[:70] + COLL, COLL), "interleaved", 1)
        # a cut segment is counted as cut only: the parts add up to the 1
        self.assertIn("(first at 2: 1 cut, 0 malformed, 0 over-long lines)", r.err)

    def test_million_byte_line(self):
        data = nccl_log(COLL + " " + "x" * 10 ** 6, COLL)
        r = self.warned("nccl.log", data, "long line", 1)
        self.assertIn("0 cut, 0 malformed, 1 over-long line)", r.err)

    def test_empty_file(self):
        self.assertEqual(self.error("nccl.log", b"", "empty"), "0: empty file")


# --------------------------------------------------------------- pickles

PTYPES = {"None": None, "True": True, "int": 7, "negative": -1, "float": 1.5,
          "str": "x", "bytes": b"x", "list": [], "dict": {}, "tuple": (1, 2)}
PK_NAME = {"None": "none", "True": "bool", "int": "int", "negative": "int",
           "float": "float", "str": "str", "bytes": "bytes", "list": "list",
           "dict": "dict", "tuple": "tuple"}


def pk4(doc):
    return pickle.dumps(doc, protocol=4)


def set_path(doc, path, v):
    o = doc
    for k in path[:-1]:
        o = o[k]
    o[path[-1]] = v
    return doc


def pickle_truncation_check(test):
    def check(c, r, path, data):
        msg = test.error_of(r, path)
        if c == 0:
            test.assertEqual(msg, "0: empty file")
            return
        m = LINE_ERR.match(msg)
        test.assertIsNotNone(m, msg)
        test.assertLessEqual(int(m.group(1)), c, msg)
        test.assertRegex(m.group(2), r"^(truncated pickle: .+ (runs past end of "
                         r"file|needs \d+ argument bytes?, \d+ left)|no STOP opcode: "
                         r"the pickle ends after %d bytes)$" % c)
    return check


class PickleHostile(Hostile):

    def error_of(self, r, path):
        self.assertEqual(r.rc, 6, r.err)
        return r.err.strip()[len("profan: %s:" % path):]


# how a snapshot warning names the type of a pickle value
PK_PHRASE = {"None": "None", "True": "a bool", "int": "an int",
             "negative": "an int", "float": "a float", "str": "a str",
             "bytes": "bytes", "list": "a list", "dict": "a dict",
             "tuple": "a tuple"}


class SnapshotInputs(PickleHostile):

    # fields, the pickle types each may hold without a warning, and what
    # the loader does with any other: (type it wants, what it does instead)
    FIELDS = {
        ("segments", 0, "device"): (("int",), "an int", "taken as 0"),
        ("segments", 0, "address"): (("int",), "an int", "ignored"),
        ("segments", 0, "total_size"): (("int",), "an int", "taken as 0"),
        ("segments", 0, "allocated_size"): (("int", "None"), "an int", "ignored"),
        ("segments", 0, "active_size"): (("int", "None"), "an int", "ignored"),
        ("segments", 0, "requested_size"): (("int", "None"), "an int", "ignored"),
        ("segments", 0, "stream"): (("int", "negative", "None"), "an int", "ignored"),
        ("segments", 0, "segment_type"): (("str", "None"), "a str", "ignored"),
        ("segments", 0, "blocks"): (("list",), "a list", "ignored"),
        ("segments", 0, "blocks", 0, "address"): (("int", "None"), "an int",
                                                  "taken as the end of the block before"),
        ("segments", 0, "blocks", 0, "size"): (("int",), "an int", "block skipped"),
        ("segments", 0, "blocks", 0, "requested_size"): (("int", "None"), "an int", "ignored"),
        ("segments", 0, "blocks", 0, "state"): (("str",), "a str", 'taken as "inactive"'),
        ("segments", 0, "blocks", 0, "frames"): (("list", "None"), "a list", "ignored"),
        ("segments", 0, "blocks", 0, "frames", 0, "name"): (("str",), "a str",
                                                            'frame stored with ""'),
        ("segments", 0, "blocks", 0, "frames", 0, "filename"): (("str",), "a str",
                                                                'frame stored with ""'),
        ("segments", 0, "blocks", 0, "frames", 0, "line"): (("int", "negative"), "an int",
                                                            "frame stored with 0"),
        ("device_traces", 0, 1, "action"): (("str",), "a str", "entry skipped"),
        ("device_traces", 0, 1, "addr"): (("int",), "an int", "entry skipped"),
        ("device_traces", 0, 1, "size"): (("int",), "an int", "entry skipped"),
        ("device_traces", 0, 1, "stream"): (("int", "negative", "None"), "an int", "ignored"),
        ("device_traces", 0, 1, "time_us"): (("int", "None"), "an int", "ignored"),
        ("device_traces", 0, 1, "frames"): (("list", "None"), "a list", "ignored"),
    }

    def expected(self, path, tname):
        """(warnings, first warning) for field path holding type tname."""
        ok, want, action = self.FIELDS[path]
        key = path[-1]
        if tname == "int" and key in ("total_size", "size") and path[0] == "segments":
            # a size of 7: the blocks no longer tile the segment
            return 1, "segments[0]: blocks add up to %d bytes, total_size is %d" % (
                (2 << 20, 7) if key == "total_size" else (7 + (2 << 20) - 512, 2 << 20))
        if key == "action" and tname == "str":
            return 1, "device_traces[0][1]: unknown action (stored as is)"
        if tname in ok:
            return 0, None
        if path[0] == "device_traces":
            where = "device_traces[0][1]"
        elif "frames" in path[:-1]:
            # the frame list is shared with the trace entries, whose
            # device trace is read first
            where = "device_traces[0][0]"
        elif "blocks" in path[:-1]:
            where = "segments[0].blocks[0]"
        else:
            where = "segments[0]"
        if key == "device" and tname == "negative":
            return 1, '%s: "device" is -1, out of range; segment skipped' % where
        if key == "frames" and tname == "tuple":
            # (1, 2): a list-like whose two items are not frames
            return 2, "%s: frame is an int, not a dict; ignored" % where
        if tname == "negative" and want == "an int":
            return 1, '%s: "%s" is negative (-1); %s' % (where, key, action)
        return 1, '%s: "%s" is %s, not %s; %s' % (where, key, PK_PHRASE[tname],
                                                  want, action)

    def test_truncated_at_50_offsets(self):
        self.truncations("snapshot", pickle_truncation_check(self))

    def test_200_random_byte_flips(self):
        out = self.flips("snapshot")
        self.assertEqual(sum(out.values()), 100 if sanitized() else 200)

    def test_wrong_type_in_every_field(self):
        # every field of a segment, a block, a frame and a trace entry, with
        # every pickle type: the exact warning count and first warning, and
        # --strict (once per field) refuses it
        n = 0
        for path in self.FIELDS:
            types = some(list(PTYPES))
            strict_type = next(t for t in types if t not in self.FIELDS[path][0])
            for tname in types:
                doc = set_path(snapshot_doc(), path, PTYPES[tname])
                what = "%s=%s" % ("/".join(map(str, path)), tname)
                want, first = self.expected(path, tname)
                with self.subTest(what=what):
                    r = self.warned("snap.pickle", pk4(doc), what, want,
                                    strict=tname == strict_type)
                    if first:
                        self.assertIn("(first at %s)" % first, r.err, what)
                n += 1
        self.assertEqual(n, len(self.FIELDS) * len(some(list(PTYPES))))

    def test_skipped_and_ignored_values_are_not_stored(self):
        # a trace entry whose size is a str is skipped (3 alloc_event rows
        # of 4); a segment address that is a list is stored as NULL; a
        # block whose size is a float is skipped (1 block row of 2)
        base = 0x7f0000000000
        doc = set_path(snapshot_doc(), ("device_traces", 0, 1, "size"), "1024")
        self.warned("snap.pickle", pk4(doc), "size str", 1, strict=False)
        self.assertEqual(self.sql("SELECT idx, action, addr, size FROM alloc_event e"
                                  " JOIN run r ON r.id = e.run_id WHERE r.name = 'bad'"
                                  " ORDER BY idx"),
                         [{"idx": "0", "action": "alloc", "addr": str(base), "size": "512"},
                          {"idx": "1", "action": "free_requested",
                           "addr": str(base + 4096), "size": "1024"},
                          {"idx": "2", "action": "free_completed",
                           "addr": str(base + 4096), "size": "1024"}])
        doc = set_path(snapshot_doc(), ("segments", 0, "address"), [])
        set_path(doc, ("segments", 0, "blocks", 1, "size"), 1.5)
        self.warned("snap.pickle", pk4(doc), "address list, size float", 2,
                    strict=False)
        self.assertEqual(self.sql("SELECT s.address IS NULL AS no_addr, s.total_size,"
                                  " b.idx, b.address FROM segment s JOIN block b"
                                  " ON b.segment_id = s.id JOIN run r ON r.id = s.run_id"
                                  " WHERE r.name = 'bad'"),
                         [{"no_addr": "1", "total_size": str(2 << 20), "idx": "0",
                           "address": str(base)}])

    def test_huge_numbers_in_a_segment(self):
        # a segment size past int64 (LONG1), a float, NaN, inf or a negative
        # one: counted, and the size taken as 0
        for v, why in ((2 ** 64, "does not fit 64 bits"),
                       (-2 ** 63 - 1, "does not fit 64 bits"),
                       (1e308, "is a float, not an int"),
                       (float("nan"), "is a float, not an int"),
                       (float("inf"), "is a float, not an int"),
                       (-1024, "is negative (-1024)")):
            doc = set_path(snapshot_doc(), ("segments", 0, "total_size"), v)
            with self.subTest(v=v):
                r = self.warned("snap.pickle", pk4(doc), repr(v), 1,
                                strict=v == -1024)
                self.assertIn('(first at segments[0]: "total_size" %s; taken as 0)'
                              % why, r.err)
                got = self.sql("SELECT s.total_size FROM segment s JOIN run r"
                               " ON r.id = s.run_id WHERE r.name = 'bad'")
                self.assertEqual(got, [{"total_size": "0"}])

    def test_huge_and_negative_trace_sizes_are_counted(self):
        # a trace entry's size of 2^64, -2^63-1, 1e308, NaN, inf or -1024
        # skips the entry; a time_us of the same is dropped (NULL)
        for key, action, rows in (("size", "entry skipped", 3),
                                  ("time_us", "ignored", 4)):
            for v, why in ((2 ** 64, "does not fit 64 bits"),
                           (-2 ** 63 - 1, "does not fit 64 bits"),
                           (1e308, "is a float, not an int"),
                           (float("nan"), "is a float, not an int"),
                           (float("inf"), "is a float, not an int"),
                           (-1024, "is negative (-1024)")):
                doc = set_path(snapshot_doc(), ("device_traces", 0, 1, key), v)
                what = "%s=%r" % (key, v)
                with self.subTest(what=what):
                    r = self.warned("snap.pickle", pk4(doc), what, 1,
                                    strict=v == -1024)
                    self.assertIn('(first at device_traces[0][1]: "%s" %s; %s)'
                                  % (key, why, action), r.err)
                    got = self.sql("SELECT count(*) AS n, count(time_us) AS t"
                                   " FROM alloc_event e JOIN run r"
                                   " ON r.id = e.run_id WHERE r.name = 'bad'")
                    self.assertEqual(got, [{"n": str(rows), "t": "3"}])

    def test_invalid_utf8_in_strings_is_counted(self):
        # a BINUNICODE string that is not UTF-8 is stored with its bad bytes
        # replaced by '?' (as the trace parser does), counted once
        raw = pk4(snapshot_doc()).replace(b"forward", b"forw\xffrd")
        r = self.warned("snap.pickle", raw, "bad utf-8 in a frame", 1)
        self.assertIn("(first at device_traces[0][0]: frame \"name\" is not valid"
                      " UTF-8 (bad bytes replaced by '?'))", r.err)
        got = self.sql("SELECT f.name FROM frame f JOIN run r ON r.id = f.run_id"
                       " WHERE r.name = 'bad' ORDER BY f.name")
        self.assertEqual(got, [{"name": "forw?rd"}, {"name": "train_step"}])
        raw = pk4(snapshot_doc()).replace(b"large", b"l\xe9rge")
        r = self.warned("snap.pickle", raw, "bad utf-8 in a segment type", 1)
        self.assertIn("(first at segments[0]: \"segment_type\" is not valid"
                      " UTF-8 (bad bytes replaced by '?'))", r.err)
        got = self.sql("SELECT s.segment_type FROM segment s JOIN run r"
                       " ON r.id = s.run_id WHERE r.name = 'bad'")
        self.assertEqual(got, [{"segment_type": "l?rge"}])

    def test_annotations_and_device_traces(self):
        # external annotations: valid ones load without a warning; a field
        # of the wrong type is counted (stored as NULL, the device as 0), an
        # annotation that is not a dict is skipped; a device trace that is
        # not a list is counted and ignored
        def doc_with(ann):
            d = snapshot_doc()
            d["external_annotations"] = [ann]
            return d
        good = {"device": 0, "time_us": T0 + 3, "stage": "START", "name": "fwd"}
        self.warned("snap.pickle", pk4(doc_with(good)), "good annotation", 0)
        self.assertEqual(self.sql("SELECT a.time_us, a.stage, a.name FROM"
                                  " memory_annotation a JOIN run r ON r.id = a.run_id"
                                  " WHERE r.name = 'bad'"),
                         [{"time_us": str(T0 + 3), "stage": "START", "name": "fwd"}])
        cases = [
            ({"time_us": 1.5}, 'external_annotations[0]: "time_us" is a float, not an'
                               ' int; ignored', "NULL", "START", "fwd"),
            ({"stage": 5}, 'external_annotations[0]: "stage" is an int, not a str;'
                           ' ignored', str(T0 + 3), "NULL", "fwd"),
            ({"name": [1]}, 'external_annotations[0]: "name" is a list, not a str;'
                            ' ignored', str(T0 + 3), "START", "NULL"),
            ({"device": "0"}, 'external_annotations[0]: "device" is a str, not an'
                              ' int; taken as 0', str(T0 + 3), "START", "fwd"),
        ]
        for change, first, tu, stage, name in cases:
            ann = dict(good, **change)
            with self.subTest(change=change):
                r = self.warned("snap.pickle", pk4(doc_with(ann)), repr(change), 1)
                self.assertIn("(first at %s)" % first, r.err)
                self.assertEqual(self.sql("SELECT ifnull(a.time_us, 'NULL') AS time_us,"
                                          " ifnull(a.stage, 'NULL') AS stage,"
                                          " ifnull(a.name, 'NULL') AS name FROM"
                                          " memory_annotation a JOIN run r"
                                          " ON r.id = a.run_id WHERE r.name = 'bad'"),
                                 [{"time_us": tu, "stage": stage, "name": name}])
        r = self.warned("snap.pickle", pk4(doc_with("START")), "annotation str", 1)
        self.assertIn("(first at external_annotations[0]: annotation is a str, not a"
                      " dict; skipped)", r.err)
        r = self.warned("snap.pickle", pk4(doc_with(dict(good, device=-2))),
                        "annotation device -2", 1)
        self.assertIn('(first at external_annotations[0]: "device" is -2, out of'
                      ' range; annotation skipped)', r.err)
        doc = snapshot_doc()
        doc["device_traces"] = [5]
        r = self.warned("snap.pickle", pk4(doc), "device trace int", 1)
        self.assertIn("(first at device_traces[0]: device trace is an int, not a"
                      " list; ignored)", r.err)
        self.assertEqual(self.sql("SELECT count(*) AS n FROM alloc_event e JOIN run r"
                                  " ON r.id = e.run_id WHERE r.name = 'bad'"),
                         [{"n": "0"}])

    def test_refusal_message_is_utf8(self):
        # the "not a snapshot" message shows the dict's keys sanitised
        raw = pk4(snapshot_doc()).replace(b"segments", b"segmen\xf2s")
        self.assertEqual(self.error("snap.pickle", raw, "bad key"),
                         " pickle is not a CUDA memory snapshot or flight-recorder"
                         " dump: it holds a dict with 2 keys ('segmen?s',"
                         " 'device_traces')")

    def test_1000_deep_nesting(self):
        # 1,000 EMPTY_LISTs appended into each other, written by hand: the
        # decoder's limit is 1,000 containers, so this decodes and is then
        # refused for what it is
        raw = b"\x80\x04" + b"]" * 1000 + b"a" * 999 + b"."
        self.assertEqual(self.error("snap.pickle", raw, "deep"),
                         " pickle is not a CUDA memory snapshot or flight-recorder"
                         " dump: it holds a list of 1 items")
        # inside a snapshot the same list goes past the limit
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(20000)
        try:
            deep = []
            for _ in range(1000):
                deep = [deep]
            raw = pk4(set_path(snapshot_doc(), ("segments", 0, "blocks", 0, "frames"), deep))
        finally:
            sys.setrecursionlimit(old)
        start = raw.index(b"]\x94" * 100)      # EMPTY_LIST MEMOIZE ...
        m = LINE_ERR.match(self.error("snap.pickle", raw, "deep in frames"))
        self.assertEqual(m.group(2), "nesting deeper than 1000")
        self.assertTrue(start < int(m.group(1)) < len(raw), m.group(0))

    def test_million_byte_string(self):
        doc = set_path(snapshot_doc(), ("segments", 0, "blocks", 0, "frames", 0, "name"),
                       "f" * 10 ** 6)
        self.warned("snap.pickle", pk4(doc), "long frame name", 0)

    def test_empty_file(self):
        self.assertEqual(self.error("snap.pickle", b"", "empty"), "0: empty file")


class FlightRecorderInputs(PickleHostile):

    INT = ("None", "int", "negative")
    ENTRY_OK = {
        "frames": ("None", "list"), "record_id": INT, "pg_id": INT,
        "process_group": ("None",), "collective_seq_id": INT,
        "p2p_seq_id": INT, "op_id": INT, "profiling_name": ("str",),
        "time_created_ns": INT, "input_sizes": ("None", "list"),
        "output_sizes": ("None", "list"), "input_dtypes": ("None", "list"),
        "output_dtypes": ("None", "list"), "state": ("None", "str"),
        "time_discovered_started_ns": INT, "time_discovered_completed_ns": INT,
        "retired": ("None", "True", "int", "negative"), "timeout_ms": INT,
        "is_p2p": ("None", "True", "int", "negative"),
        "duration_ms": ("None", "int", "float"),
    }

    def expected(self, path, tname):
        """(error message, warning message) for field path = tname."""
        if path[0] == "entries" and len(path) == 1:
            if tname in ("list", "tuple"):
                return None, ("entry 0: not a dict; skipped" if tname == "tuple" else None)
            return '"entries" is a %s, not a list' % PK_NAME[tname], None
        if path[0] == "pg_config" and len(path) == 1:
            if tname == "dict":
                return None, None
            return '"pg_config" is a %s, not a dict' % PK_NAME[tname], None
        if path[0] in ("version", "nccl_version"):
            return None, None if tname in ("None", "str") else "%s: not a string; ignored" % path[0]
        if path[0] == "pg_status":
            return None, None if tname in ("None", "dict") else "pg_status: not a dict; ignored"
        if path[0] == "pg_config":
            ok = ("None", "str", "list", "tuple") if path[-1] == "ranks" else ("None", "str")
            return None, None if tname in ok else \
                'pg_config group 0: "%s" of the wrong type ignored' % path[-1]
        key = path[-1]
        if tname in self.ENTRY_OK[key]:
            return None, None
        if key == "profiling_name":
            return None, "entry 0: no profiling_name"
        return None, 'entry 0: "%s" of the wrong type ignored' % key

    def matrix(self, name, mk, enc, types):
        n = 0
        paths = [("entries", 0, k) for k in mk()["entries"][0]] + \
                [("pg_config", "0", k) for k in ("name", "desc", "ranks")] + \
                [(k,) for k in mk()]
        for path in paths:
            for tname in types:
                doc = set_path(mk(), path, PTYPES[tname])
                err, warn = self.expected(path, tname)
                what = "%s=%s" % ("/".join(map(str, path)), tname)
                with self.subTest(what=what):
                    if err:
                        self.assertEqual(self.error(name, enc(doc), what),
                                         " flight-recorder dump: " + err)
                    else:
                        nw = 0 if warn is None else (2 if tname == "tuple"
                                                     and path == ("entries",) else 1)
                        r = self.warned(name, enc(doc), what, nw,
                                        strict=tname in ("str", "dict"))
                        if warn:
                            self.assertIn("(first at %s)" % warn, r.err, what)
                n += 1
        return n

    def test_pickle_wrong_type_in_every_field(self):
        types = some([t for t in PTYPES if t != "bytes"])     # protocol 2: no bytes
        n = self.matrix("nccl_trace_rank_0", fr_doc, pk, types)
        self.assertEqual(n, (len(fr_doc()["entries"][0]) + 3 + len(fr_doc())) * len(types))

    def test_json_wrong_type_in_every_field(self):
        types = some([t for t in PTYPES if t not in ("bytes", "tuple")])
        n = self.matrix("nccl_trace_rank_0.json", fr_json_doc,
                        lambda d: json.dumps(d).encode(), types)
        self.assertEqual(n, (len(fr_json_doc()["entries"][0]) + 3 + len(fr_json_doc()))
                         * len(types))

    def test_pickle_truncated_at_50_offsets(self):
        self.truncations("fr_pickle", pickle_truncation_check(self))

    def test_json_truncated_at_50_offsets(self):
        def check(c, r, path, data):
            msg = self.error_of(r, path)
            head = data[:c]
            if c == 0:
                want = "0: empty file"
            elif b'"version"' in head and (b'"entries"' in head or b'"pg_config"' in head):
                want = "%d: truncated JSON: the file ends inside the flight-recorder dump" % c
            else:
                want = "%d: truncated JSON: the file ends inside the trace" % c
            self.assertEqual(msg, want)
        self.truncations("fr_json", check)

    def test_pickle_200_random_byte_flips(self):
        self.assertEqual(sum(self.flips("fr_pickle").values()), 100 if sanitized() else 200)

    def test_json_200_random_byte_flips(self):
        self.assertEqual(sum(self.flips("fr_json").values()), 100 if sanitized() else 200)

    def test_huge_numbers_nan_and_negative_durations(self):
        for enc, name, mk in ((pk, "nccl_trace_rank_0", fr_doc),
                              (lambda d: json.dumps(d).encode(), "nccl_trace_rank_0.json",
                               fr_json_doc)):
            for key, v in (("time_created_ns", 2 ** 64), ("record_id", -2 ** 63 - 1),
                           ("timeout_ms", 10 ** 30), ("duration_ms", float("nan")),
                           ("duration_ms", float("inf")), ("duration_ms", -0.4),
                           ("input_sizes", [[2 ** 40, 2 ** 40]]),
                           ("input_sizes", [[-1]])):
                doc = set_path(mk(), ("entries", 0, key), v)
                with self.subTest(name=name, key=key, v=v):
                    if name.endswith(".json") and isinstance(v, float) and not math.isfinite(v):
                        # json.dumps writes NaN / Infinity: not JSON
                        raw = enc(doc)
                        at = raw.index(b"NaN" if v != v else b"Infinity")
                        self.assertEqual(self.error(name, raw, repr(v)),
                                         "%d: invalid JSON: invalid char"
                                         " in json text." % at)
                        continue
                    r = self.warned(name, enc(doc), "%s=%r" % (key, v), 1)
                    self.assertIn('(first at entry 0: "%s" of the wrong type ignored)' % key,
                                  r.err)

    def test_invalid_utf8_long_string_and_nesting(self):
        # invalid UTF-8 in the JSON variant: refused (the strings are stored as TEXT)
        raw = json.dumps(fr_json_doc()).encode().replace(b"nccl:all_reduce", b"nccl:all_\xffeduce", 1)
        msg = self.error("nccl_trace_rank_0.json", raw, "bad utf-8")
        self.assertRegex(msg, r"^\d+: invalid JSON: invalid bytes in UTF8 string\.$")
        # a 10^6-byte profiling name is kept whole
        doc = set_path(fr_json_doc(), ("entries", 0, "profiling_name"), "nccl:" + "x" * 10 ** 6)
        self.warned("nccl_trace_rank_0.json", json.dumps(doc).encode(), "long name", 0)
        got = self.sql("SELECT max(length(profiling_name)) AS n FROM fr_entry")
        self.assertEqual(got, [{"n": str(10 ** 6 + 5)}])
        # 1,000-deep nesting
        raw = json.dumps(set_path(fr_json_doc(), ("entries", 0, "input_sizes"), 424242))
        raw = raw.replace("424242", "[" * 1000 + "]" * 1000).encode()
        msg = self.error("nccl_trace_rank_0.json", raw, "deep")
        self.assertRegex(msg, r"^\d+: flight-recorder JSON nested deeper than \d+$")

    def test_unescaped_quote(self):
        raw = json.dumps(fr_json_doc()).encode().replace(b"nccl:all_reduce", b'nccl:all"reduce', 1)
        at = raw.index(b'all"reduce') + 4
        self.assertEqual(self.error("nccl_trace_rank_0.json", raw, "quote"),
                         "%d: invalid JSON: invalid char in json text." % at)

    def test_empty_files(self):
        self.assertEqual(self.error("nccl_trace_rank_0", b"", "empty"), "0: empty file")
        self.assertEqual(self.error("nccl_trace_rank_0.json", b"", "empty"), "0: empty file")


# ------------------------------------------------- unreadable files in a dir

class UnreadableFiles(Hostile):
    """A run directory holding a file profan cannot read.  chmod 000
    blocks nothing for root, so under root profan runs as user nobody
    through setpriv (common.run_unprivileged), otherwise as the user
    itself; a dangling symbolic link is a second unreadable entry."""

    def make_run(self):
        run = os.path.join(self.tmp.name, "run")
        os.mkdir(run)
        with open(os.path.join(run, "a.json"), "wb") as f:
            f.write(json.dumps(trace_doc()).encode())
        return run

    def as_nobody(self, *args):
        """profan as a user chmod binds (common.run_unprivileged)."""
        os.chmod(self.tmp.name, 0o777)
        shutil.copyfile(self.base_db, self.db)
        os.chmod(self.db, 0o666)
        return common.run_unprivileged(*args, db=self.db)

    def test_chmod_000_file_is_skipped_then_strict_refuses(self):
        run = self.make_run()
        bad = os.path.join(run, "b.json")
        with open(bad, "wb") as f:
            f.write(json.dumps(trace_doc()).encode())
        os.chmod(bad, 0)
        r = self.as_nobody("ingest", "--name", "bad", run)
        self.assertEqual(r.rc, 0, r.err)
        self.assertIn("profan: %s: skipped: cannot open: Permission denied\n" % bad, r.err)
        self.assertIn("(some files skipped, see above)", r.err)
        self.assertEqual(self.sql("SELECT count(*) AS n FROM run_file f JOIN run r"
                                  " ON r.id = f.run_id WHERE r.name = 'bad'"), [{"n": "1"}])
        r = self.as_nobody("ingest", "--name", "bad2", "--strict", run)
        self.assertEqual(r.rc, 6, r.err)
        self.assertEqual(r.err, "profan: %s: cannot open: Permission denied (--strict: an "
                         "unreadable file is an error)\n" % bad)
        # named on the command line, the file is an error even without --strict
        r = self.as_nobody("ingest", "--name", "bad3", bad)
        self.assertEqual(r.rc, 6, r.err)
        self.assertEqual(r.err, "profan: %s: cannot open: Permission denied\n" % bad)

    def test_dangling_link_is_skipped_then_strict_refuses(self):
        run = self.make_run()
        link = os.path.join(run, "c.json")
        os.symlink(os.path.join(run, "gone.json"), link)
        r, _ = self.attempt(run, None, "dangling link")
        self.assertEqual(r.rc, 0, r.err)
        self.assertIn("profan: %s: skipped: No such file or directory\n" % link, r.err)
        r, _ = self.attempt(run, None, "dangling link --strict", strict=True)
        self.assertEqual(r.rc, 6, r.err)
        self.assertEqual(r.err, "profan: %s: No such file or directory (--strict: an "
                         "unreadable file is an error)\n" % link)

    def test_unreadable_subdirectory(self):
        run = self.make_run()
        sub = os.path.join(run, "sub")
        os.mkdir(sub, 0)
        r = self.as_nobody("ingest", "--name", "bad", run)
        self.assertEqual(r.rc, 0, r.err)
        self.assertIn("profan: %s: skipped: cannot read directory: Permission denied\n"
                      % sub, r.err)
        r = self.as_nobody("ingest", "--name", "bad2", "--strict", run)
        self.assertEqual(r.err, "profan: %s: cannot read directory: Permission denied "
                         "(--strict: an unreadable file is an error)\n" % sub)

    def test_fifo_and_directory_named_like_a_trace(self):
        # neither is a regular file: not read, not counted, no hang
        run = self.make_run()
        os.mkfifo(os.path.join(run, "pipe.json"))
        os.mkdir(os.path.join(run, "dir.json"))
        r, _ = self.attempt(run, None, "fifo", strict=True)
        self.assertEqual(r.rc, 0, r.err)
        # a FIFO named on the command line is refused, not read
        r, _ = self.attempt(os.path.join(run, "pipe.json"), None, "fifo arg")
        self.assertEqual(r.err, "profan: %s: not a regular file or directory\n"
                         % os.path.join(run, "pipe.json"))


class FuzzRegressions(Hostile):
    """Inputs the libFuzzer harnesses once crashed on (fuzz/regress/HARNESS/)
    replayed through the real binary: exit 0 or 1, never a crash.  An
    fuzz_ingest input is cut at "\\n%%\\n" into the files of a run
    directory, as the harness does."""

    KIND = {"trace": "t.json", "jscan": "t.json", "pickle": "snap.pickle",
            "snapshot": "snap.pickle", "fr": "nccl_trace_rank_0.json",
            "nccl": "nccl.log"}
    INGEST_FILES = ("rank0.trace.json", "worker1.pt.trace.json", "nccl.log")

    def replay_ingest(self, data, what):
        run = os.path.join(self.tmp.name, "run-" + what.replace("/", "-"))
        os.mkdir(run)
        for name, part in zip(self.INGEST_FILES, data.split(b"\n%%\n", 2)):
            with open(os.path.join(run, name), "wb") as fh:
                fh.write(part)
        return self.attempt(run, None, what)

    def test_replay(self):
        top = os.path.join(common.ROOT, "fuzz", "regress")
        n = 0
        for h in sorted(os.listdir(top)):
            for f in sorted(os.listdir(os.path.join(top, h))):
                with open(os.path.join(top, h, f), "rb") as fh:
                    data = fh.read()
                what = "%s/%s" % (h, f)
                with self.subTest(harness=h, input=f):
                    if h == "ingest":
                        self.replay_ingest(data, what)
                    else:
                        self.attempt(self.KIND.get(h, "input"), data, what)
                n += 1
        # the folder is committed with at least the overflow input below
        self.assertGreater(n, 0, "fuzz/regress/ holds no input")

    def test_replayed_overflow_is_refused(self):
        # fuzz/regress/ingest/durations-past-int64.json.gz: 70,000 kernels
        # of 140737488355 us (under the 39-hour cap each) add up past 2^63
        # ns; refused at the 32,769th (the first past 2^62 ns)
        path = os.path.join(common.ROOT, "fuzz", "regress", "ingest",
                            "durations-past-int64.json.gz")
        with open(path, "rb") as fh:
            r, run = self.replay_ingest(fh.read(), "overflow")
        self.assertEqual(r.rc, 6, r.err)
        self.assertRegex(r.err, r"^profan: %s/rank0\.trace\.json:[0-9]+: durations add up"
                         r" past 2\^62 ns \(146 years\) in one ingest; refused\n$"
                         % re.escape(run))


class DurationSums(Hostile):

    def test_sum_of_valid_durations_past_int64(self):
        # 70,000 kernels of one name, each just under the 39-hour cap, add up
        # to 9.85e21 ns, past 2^63: no int64 sum can hold it, so the ingest is
        # refused at the first event that takes the total past 2^62 ns, and
        # the database is left as it was (attempt() checks the bytes).
        dur = 140737488355
        ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
               "ts": 1000 + i, "dur": dur,
               "args": {"correlation": i, "stream": 7, "device": 0}}
              for i in range(70000)]
        data = json.dumps({"traceEvents": ev}).encode()
        r, path = self.attempt("t.json", data, "sum")
        self.assertEqual(r.rc, 6, r.err)
        # the first event whose duration takes the sum past 2^62 ns
        limit = 2 ** 62
        k = limit // (dur * 1000)          # events that still fit
        off = find_nth(data, b'{"ph"', k)
        self.assertEqual(r.err, "profan: %s:%d: durations add up past 2^62 ns"
                         " (146 years) in one ingest; refused\n" % (path, off))

    def test_sum_just_under_the_limit_is_stored(self):
        # 32,000 such kernels (4.50e18 ns, under 2^62) fit: stored
        # with the exact total
        dur = 140737488355
        n = 32000
        ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
               "ts": 1000 + i, "dur": dur,
               "args": {"correlation": i, "stream": 7, "device": 0}}
              for i in range(n)]
        self.assertLess(n * dur * 1000, 2 ** 62)
        r, _ = self.attempt("t.json", json.dumps({"traceEvents": ev}).encode(), "sum")
        self.assertEqual(r.rc, 0, r.err)
        got = self.sql("SELECT n, total_ns FROM gpu_op_summary g JOIN run r"
                       " ON r.id = g.run_id WHERE r.name = 'bad'")
        self.assertEqual(got, [{"n": str(n), "total_ns": str(n * dur * 1000)}])


def ref_counts(evs):
    """{table: rows} for kernel, cpu_op and runtime_call of a trace's
    events, with trace_reference's classification."""
    import trace_reference as tref
    c = tref.counts(evs)
    return {"kernel": c.get("kernel", 0), "cpu_op": c.get("cpu_op", 0),
            "runtime_call": c.get("runtime", 0)}


def find_nth(data, needle, k):
    """Byte offset of the k-th (0-based) occurrence of needle in data."""
    off = -1
    for _ in range(k + 1):
        off = data.index(needle, off + 1)
    return off
