"""test_bad_traces.py — damaged traces never crash profan or change the db.

The focus of this file is robustness of `profan ingest` on a real trace cut
at many offsets and with random bytes flipped (deterministic seeds): every
run must end with exit 0 (a repairable file) or exit 1 with exactly one
error line "profan: FILE:OFFSET: ..." and the database byte-for-byte
unchanged.  Under the sanitizer build this also catches memory errors.

What is stored is decided, not left open (issue #23): a cut trace is an
error at the offset where the file ends ("truncated JSON: the file ends
inside the trace"), never a run of the events before the cut; an ingest
that exits 0 stores exactly the events Python's json module reads from
the same bytes (per table, invalid UTF-8 read as U+FFFD), or, when Python
cannot read them, reports at least one repair in run_file.warnings.
"""
import json
import gzip
import os
import random
import re
import zlib

import trace_reference as ref
from common import ProfanTest, shared

LINE = re.compile(r"^profan: [^\n]+:\d+: [^\n]+\n$")


class DamagedTraces(ProfanTest):

    def setUp(self):
        super().setUp()
        with gzip.open(shared("traces", "hta-alexnet-a100.json.gz"), "rb") as f:
            self.data = f.read()
        self.ingest_ok(shared("traces", "hta-triton.json.gz"))
        self.before = self.db_bytes()

    def attempt(self, data, what):
        p = os.path.join(self.tmp.name, "bad.json")
        with open(p, "wb") as f:
            f.write(data)
        r = self.profan("ingest", "--name", "bad", p)
        self.assertIn(r.rc, (0, 6), "%s: exit %d\n%s" % (what, r.rc, r.err))
        if r.rc == 6:
            self.assertRegex(r.err, LINE, what)
            self.assertEqual(self.db_bytes(), self.before, what)
        else:
            self.check_stored(data, what)
            self.profan("rm", "bad")
            self.before = self.db_bytes()
        return r, p

    def check_stored(self, data, what):
        """An ingest that exited 0 stored what the bytes hold."""
        try:
            # invalid UTF-8 decoded as U+FFFD: profan repairs it in names
            # (a warning) and ignores it elsewhere (an unknown key)
            doc = json.loads(data.decode("utf-8", errors="replace"), strict=False)
            evs = doc["traceEvents"] if isinstance(doc, dict) else doc
            legacy = isinstance(doc, list)
        except (ValueError, KeyError, TypeError):
            evs = None
        if evs is None:
            w = self.sql("SELECT f.warnings FROM run_file f JOIN run r"
                         " ON r.id = f.run_id WHERE r.name = 'bad'")
            self.assertGreater(int(w[0]["warnings"]), 0, (what, w))
            return
        want = ref.counts(evs, legacy)
        for kind, table in (("kernel", "kernel"), ("cpu_op", "cpu_op"),
                            ("runtime", "runtime_call")):
            got = self.sql("SELECT count(*) AS n FROM %s t JOIN run r ON r.id = t.run_id"
                           " WHERE r.name = 'bad'" % table)[0]["n"]
            self.assertEqual(int(got), want.get(kind, 0), "%s: %s" % (what, table))

    def test_truncated_at_many_offsets(self):
        rnd = random.Random(7)
        cuts = sorted(rnd.sample(range(1, len(self.data) - 1), 40)) + [1, 2, 17]
        for n in cuts:
            r, p = self.attempt(self.data[:n], "cut at %d" % n)
            # a cut trace is refused where the bytes end (a file of white
            # space only is an empty file)
            self.assertEqual(r.rc, 6, "cut at %d" % n)
            if self.data[:n].strip():
                self.assertEqual(r.err, "profan: %s:%d: truncated JSON: the file ends"
                                 " inside the trace\n" % (p, n))
            else:
                self.assertEqual(r.err, "profan: %s:0: empty file\n" % p)

    def test_random_byte_flips(self):
        rnd = random.Random(11)
        for k in range(40):
            b = bytearray(self.data)
            for _ in range(rnd.randint(1, 8)):
                b[rnd.randrange(len(b))] = rnd.randrange(256)
            self.attempt(bytes(b), "flip set %d" % k)


class DamagedGzip(ProfanTest):
    """A damaged .json.gz: exit 6, one line with zlib's own words for what
    is wrong (Python's zlib reads the same bytes for the expected words),
    the database unchanged.  profan checks each member's CRC-32 itself
    (crc32_fast.c), not zlib: a flipped bit of the data or of the trailer
    must still be "incorrect data check".  The trace inflates to 319,512
    bytes, less than the 512 KiB inflated ahead, so every error but a cut
    is found before the first byte goes to the parser: offset 0."""

    def setUp(self):
        super().setUp()
        with open(shared("traces", "hta-alexnet-a100.json.gz"), "rb") as f:
            self.gz = f.read()
        self.ingest_ok(shared("traces", "hta-triton.json.gz"))
        self.before = self.db_bytes()

    def expected(self, data):
        """(offset, message) as zlib finds the damage."""
        d = zlib.decompressobj(31)
        try:
            out = d.decompress(data)
        except zlib.error as e:
            return 0, str(e).split(": ", 1)[1]
        self.assertFalse(d.eof, "not damaged")
        return len(out), "unexpected end of file"

    def attempt(self, data, what):
        p = os.path.join(self.tmp.name, "bad.json.gz")
        with open(p, "wb") as f:
            f.write(data)
        off, msg = self.expected(data)
        r = self.profan("ingest", "--name", "bad", p)
        self.assertEqual((r.rc, r.err), (6, "profan: %s:%d: corrupt gzip data:"
                                         " %s: %s\n" % (p, off, p, msg)), what)
        self.assertEqual(self.db_bytes(), self.before, what)
        return msg

    def test_trailer(self):
        n = len(self.gz)
        seen = set()
        for k in range(8):                  # CRC-32, then the length
            for bit in (0, 7):
                b = bytearray(self.gz)
                b[n - 8 + k] ^= 1 << bit
                seen.add(self.attempt(bytes(b), "trailer byte %d bit %d" % (k, bit)))
        b = bytearray(self.gz)
        b[n - 8] ^= 1
        b[n - 1] ^= 1
        # both wrong: the CRC is reported, as zlib checks it first
        self.assertEqual(self.attempt(bytes(b), "both"), "incorrect data check")
        self.assertEqual(seen, {"incorrect data check", "incorrect length check"})

    def test_data_flips_and_cuts(self):
        rnd = random.Random(29)
        seen = set()
        for k in range(30):
            b = bytearray(self.gz)
            b[rnd.randrange(10, len(b) - 8)] ^= 1 << rnd.randrange(8)
            seen.add(self.attempt(bytes(b), "flip %d" % k))
        for n in sorted(rnd.sample(range(20, len(self.gz)), 8)):
            seen.add(self.attempt(self.gz[:n], "cut at %d" % n))
        # bits that leave valid deflate data, caught by the CRC alone
        self.assertIn("incorrect data check", seen)
        self.assertIn("unexpected end of file", seen)
