"""test_bad_traces.py — damaged traces never crash profan or change the db.

The focus of this file is robustness of `profan ingest` on a real trace cut
at many offsets and with random bytes flipped (deterministic seeds): every
run must end with exit 0 (a repairable file) or exit 1 with exactly one
error line "profan: FILE:OFFSET: ..." and the database byte-for-byte
unchanged.  Under the sanitizer build this also catches memory errors.
"""
import gzip
import os
import random
import re

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
        self.assertIn(r.rc, (0, 1), "%s: exit %d\n%s" % (what, r.rc, r.err))
        if r.rc == 1:
            self.assertRegex(r.err, LINE, what)
            self.assertEqual(self.db_bytes(), self.before, what)
        else:
            self.profan("rm", "bad")
            self.before = self.db_bytes()

    def test_truncated_at_many_offsets(self):
        rnd = random.Random(7)
        cuts = sorted(rnd.sample(range(1, len(self.data) - 1), 40)) + [1, 2, 17]
        for n in cuts:
            self.attempt(self.data[:n], "cut at %d" % n)

    def test_random_byte_flips(self):
        rnd = random.Random(11)
        for k in range(40):
            b = bytearray(self.data)
            for _ in range(rnd.randint(1, 8)):
                b[rnd.randrange(len(b))] = rnd.randrange(256)
            self.attempt(bytes(b), "flip set %d" % k)
