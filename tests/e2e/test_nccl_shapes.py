"""test_nccl_shapes.py — NCCL log line shapes as users paste them (issue 22).

Each file under fixtures/nccl/shapes/ (written by fixtures/nccl/gen_shapes.py)
holds one family of shapes: rank-tagged COLL records, two prefixes on one
line, the 2.4 / 2.7 / 2.27 eras, WARN forms, timestamps, launcher prefixes,
proxy and RAS notes, host-less prefixes, damage.  The expected numbers come
from the small regex reader below (NcclRef), written from NCCL's printf
formats, never from profan's output: collectives (op, bytes, tag, process),
connections, communicators, warnings, and the damage counts of the warning
line (cut + malformed + over-long = total, the same with --strict).
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest
from collections import Counter

from common import ProfanTest, local, ROOT

SHAPES = local("nccl", "shapes")
LINE_CAP = 65536

# One NCCL prefix: optional host:pid:tid, [dev], optional
# "[<ms>] <file>:<line> [(func)]" (WARN / TRACE), the level word.
PFX = re.compile(
    r"(?:(?P<host>[A-Za-z0-9][\w.-]{0,63}):(?P<pid>\d+):(?P<tid>\d+) )?"
    r"\[(?P<dev>-?\d+)\] (?:(?:\d+\.\d+ )?[\w./-]+:\d+ (?:\(\w+\) )?)?"
    r"NCCL (?P<lvl>INFO|WARN|TRACE) ")
COLL = re.compile(
    r"(?:\[(?:Rank )?(?P<tag>\d+)\] )?(?P<op>[A-Za-z]+): opCount [0-9a-f]+ "
    r"sendbuff (?:0x[0-9a-f]+|\(nil\)) recvbuff (?:0x[0-9a-f]+|\(nil\)) "
    r"count (?P<count>\d+) datatype (?P<dt>\d+) op \d+ root \d+ "
    r"comm (?P<comm>0x[0-9a-f]+)(?: \[nranks=\d+\])? stream 0x[0-9a-f]+"
    r"(?: .*)?$")
LINK = re.compile(
    r"(?:Channel|Ring) \d+(?:/\d+)? : \d+(?:\[\w+\])? -> \d+(?:\[\w+\])?"
    r"(?: \[(?:send|receive)\])? via (?P<via>\S.*)$")
NVLS = re.compile(r"NVLS comm 0x[0-9a-f]+ headRank \d+")
INIT = re.compile(
    r"(?:\[Rank \d+\] )?(?:\w+ )?comm (?P<comm>0x[0-9a-f]+) rank (?P<rank>\d+)"
    r" n[Rr]anks \d+ .*(?:- Init (?:START|COMPLETE)|nNodes \d+.*)$")
TRACE_ERR = re.compile(r"\S+:\d+ -> \d+$")
WARN_WORDS = re.compile(
    r"fail|error|refused|timed out|timeout|exceeded|unable|mismatch", re.I)
ENV_NOTE = re.compile(r"NCCL_[A-Z0-9_]+ set by environment to ")
DT_SIZE = {0: 1, 1: 1, 2: 4, 3: 4, 4: 8, 5: 8, 6: 2, 7: 4, 8: 8, 9: 2}


class NcclRef:
    """What a log holds, read with the regexes above."""

    def __init__(self, path):
        self.colls, self.links, self.warns = [], [], 0
        self.comms = {}            # (host, pid, comm) -> rank
        self.cut = self.malformed = self.overlong = 0
        self.first_warn = 0
        known = {}                 # pid -> host seen at a line start
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for lineno, line in enumerate(text.split("\n")[:-1], 1):
            if len(line) > LINE_CAP:
                self.overlong += 1
                self._warn_at(lineno)
                line = line[:LINE_CAP]
            ms = list(PFX.finditer(line))
            for i, m in enumerate(ms):
                end = ms[i + 1].start() if i + 1 < len(ms) else len(line)
                host, pid = m.group("host"), m.group("pid")
                if pid is not None:
                    pid = int(pid)
                    k = known.get(pid)
                    if k and host != k and host.endswith(k):
                        host = k   # glued to the end of a cut message
                    elif i == 0 and pid not in known:
                        known[pid] = host
                cut = i + 1 < len(ms)
                self._segment(lineno, host, pid, m.group("lvl"),
                              line[m.end():end].rstrip(), cut)

    def _warn_at(self, lineno):
        if not self.first_warn:
            self.first_warn = lineno

    def _segment(self, lineno, host, pid, lvl, msg, cut):
        if cut:
            self.cut += 1
            self._warn_at(lineno)
        if lvl == "WARN":
            self.warns += 1
            return
        c = COLL.fullmatch(msg)
        if c and int(c.group("count")) < 2 ** 63:
            tag = c.group("tag")
            self.colls.append(dict(
                line=lineno, host=host, pid=pid, op=c.group("op"),
                bytes=int(c.group("count")) * DT_SIZE[int(c.group("dt"))],
                tag=None if tag is None else int(tag),
                rank=self.comms.get((host, pid, c.group("comm")))))
            return
        if "opCount" in msg:
            if not cut:
                self.malformed += 1
                self._warn_at(lineno)
            return
        i = INIT.fullmatch(msg)
        if i:
            self.comms[(host, pid, i.group("comm"))] = int(i.group("rank"))
            return
        k = LINK.fullmatch(msg)
        if k:
            self.links.append(k.group("via").split("/")[0])
            return
        if NVLS.match(msg):
            self.links.append("NVLS")
            return
        if TRACE_ERR.fullmatch(msg) or (WARN_WORDS.search(msg)
                                        and not ENV_NOTE.match(msg)):
            self.warns += 1

    @property
    def total(self):
        return self.cut + self.malformed + self.overlong


WARN_LINE = re.compile(
    r"(\d+) records? skipped or repaired \(first at (\d+): (\d+) cut, "
    r"(\d+) malformed, (\d+) over-long lines?\)")
STRICT_LINE = re.compile(
    r"^profan: (.+):(\d+): (\d+) cut, (\d+) malformed, (\d+) over-long "
    r"lines? \(--strict: (\d+) warnings?\)$")


class NcclShapesTest(ProfanTest):

    def shape(self, name):
        return os.path.join(SHAPES, name)

    def coll_rows(self):
        return self.sql("SELECT line, host, pid, op, bytes, rank, tagged_rank"
                        " FROM nccl_coll ORDER BY line, rowid")

    def check_file(self, name):
        path = self.shape(name)
        ref = NcclRef(path)
        r = self.ingest_ok(path)
        rows = self.coll_rows()
        self.assertEqual(len(rows), len(ref.colls), name)
        self.assertGreater(len(ref.colls) + len(ref.links) + len(ref.comms)
                           + ref.warns, 0, name)
        # the same records in the same order, attributed to the same process
        for got, want in zip(rows, ref.colls):
            self.assertEqual(int(got["line"]), want["line"], name)
            self.assertEqual(got["op"], want["op"], name)
            self.assertEqual(int(got["bytes"]), want["bytes"], name)
            self.assertEqual(got["host"] or None, want["host"], name)
            self.assertEqual(int(got["pid"]) if got["pid"] else None,
                             want["pid"], name)
            self.assertEqual(int(got["tagged_rank"]) if got["tagged_rank"]
                             else None, want["tag"], name)
            self.assertEqual(int(got["rank"]) if got["rank"] else None,
                             want["rank"], name)
        # launcher prefixes and timestamps are not foreign text
        g = self.sql("SELECT count(*) AS n FROM nccl_coll WHERE glued=1")
        self.assertEqual(g[0]["n"], "0", name)
        links = self.sql("SELECT transport FROM nccl_link")
        self.assertEqual(Counter(x["transport"] for x in links),
                         Counter(ref.links), name)
        n = int(self.sql("SELECT count(*) AS n FROM nccl_comm")[0]["n"])
        self.assertEqual(n, len(ref.comms), name)
        n = int(self.sql("SELECT count(*) AS n FROM nccl_warning")[0]["n"])
        self.assertEqual(n, ref.warns, name)
        if ref.total == 0:
            self.assertNotIn("skipped or repaired", r.err, name)
        return ref, r

    def test_nccl_shapes_each_file(self):
        names = sorted(os.listdir(SHAPES))
        self.assertGreaterEqual(len(names), 11)
        for name in names:
            with self.subTest(name=name):
                os.remove(self.db) if os.path.exists(self.db) else None
                self.check_file(name)

    def test_nccl_shapes_tagged_rank(self):
        """'NCCL INFO [N] AllReduce: ...': every line counted, N kept."""
        ref, _ = self.check_file("tagged-rank-2.21.log")
        self.assertEqual(len(ref.colls), 12)
        rows = self.sql("SELECT host, tagged_rank, rank FROM nccl_coll")
        self.assertEqual({(x["host"], x["tagged_rank"]) for x in rows},
                         {("trn-a", "0"), ("trn-b", "1"), ("trn-c", "2"),
                          ("trn-d", "3")})
        # the 2.29+ "[Rank N] ncclCommInitRankConfig ... Init START"
        c = self.sql("SELECT count(*) AS n FROM nccl_comm"
                     " WHERE start_line IS NOT NULL")
        self.assertEqual(c[0]["n"], "4")

    def test_nccl_shapes_two_prefixes(self):
        """The record after the second prefix belongs to that process."""
        ref, r = self.check_file("two-prefixes.log")
        rows = self.sql("SELECT host, pid, rank, op FROM nccl_coll"
                        " WHERE line=3")
        self.assertEqual(rows, [{"host": "rig7", "pid": "32629",
                                 "rank": "7", "op": "Broadcast"}])
        self.assertEqual(ref.cut, 4)
        self.assertEqual(len(ref.colls), 5)

    def test_nccl_shapes_warning_counts_add_up(self):
        for name in ("damaged.log", "two-prefixes.log"):
            with self.subTest(name=name):
                for p in (self.db, self.db + "-wal"):
                    if os.path.exists(p):
                        os.remove(p)
                path = self.shape(name)
                ref = NcclRef(path)
                r = self.ingest_ok(path)
                m = WARN_LINE.search(r.err)
                self.assertIsNotNone(m, r.err)
                total, first, cut, mal, over = map(int, m.groups())
                self.assertEqual((cut, mal, over),
                                 (ref.cut, ref.malformed, ref.overlong))
                self.assertEqual(total, cut + mal + over)
                self.assertEqual(first, ref.first_warn)
                w = self.sql("SELECT sum(warnings) AS w FROM run_file")
                self.assertEqual(int(w[0]["w"]), total)
                # --strict (into a database holding another run): refused,
                # one line, the same numbers, the database as before
                for p in (self.db, self.db + "-wal"):
                    if os.path.exists(p):
                        os.remove(p)
                self.ingest_ok(self.shape("era-2.7.log"))
                before = self.db_bytes()
                s = self.profan("ingest", "--strict", path)
                self.assertEqual(s.rc, 6, s.err)
                lines = s.err.strip().splitlines()
                self.assertEqual(len(lines), 1, s.err)
                sm = STRICT_LINE.match(lines[0])
                self.assertIsNotNone(sm, lines[0])
                self.assertEqual(sm.group(1), path)
                self.assertEqual(tuple(map(int, sm.groups()[1:])),
                                 (first, cut, mal, over, total))
                self.assertEqual(self.db_bytes(), before)
        # damaged.log holds every kind
        ref = NcclRef(self.shape("damaged.log"))
        self.assertEqual((ref.cut, ref.malformed, ref.overlong), (3, 4, 1))

    def test_nccl_shapes_clean_files_pass_strict(self):
        for name in sorted(os.listdir(SHAPES)):
            if NcclRef(self.shape(name)).total:
                continue
            with self.subTest(name=name):
                r = self.profan("ingest", "--strict", self.shape(name))
                self.assertEqual(r.rc, 0, r.err)

    def test_nccl_shapes_links_belong_to_their_process(self):
        """2.4-2.17 print the init line after the links: each link still
        gets the communicator of its process (one per process here)."""
        for name in ("era-2.4.log", "era-2.7.log", "era-2.27.log"):
            with self.subTest(name=name):
                for p in (self.db, self.db + "-wal"):
                    if os.path.exists(p):
                        os.remove(p)
                ref = NcclRef(self.shape(name))
                self.ingest_ok(self.shape(name))
                procs = Counter((h, p) for h, p, _ in ref.comms)
                self.assertTrue(all(n == 1 for n in procs.values()))
                got = self.sql(
                    "SELECT count(*) AS n FROM nccl_link l JOIN nccl_comm c"
                    " ON c.id = l.comm_row WHERE c.host = l.host"
                    " AND c.pid = l.pid")
                self.assertEqual(int(got[0]["n"]), len(ref.links))

    def test_nccl_shapes_init_formats(self):
        self.ingest_ok(self.shape("era-2.4.log"), self.shape("era-2.7.log"),
                       self.shape("era-2.27.log"))
        rows = self.sql("SELECT version, init_format, count(*) AS n"
                        " FROM nccl_comm GROUP BY 1, 2 ORDER BY 1")
        self.assertEqual([(x["version"], x["init_format"], x["n"])
                          for x in rows],
                         [("2.27.3+cuda12.9", "func", "2"),
                          ("2.4.8+cuda10.1", "2.4", "2"),
                          ("2.7.8+cuda11.0", "2.10", "2")])

    def test_nccl_shapes_generator_reproduces_files(self):
        with tempfile.TemporaryDirectory() as d:
            gen = os.path.join(ROOT, "fixtures", "nccl", "gen_shapes.py")
            subprocess.run([sys.executable, gen, d], check=True)
            self.assertEqual(sorted(os.listdir(d)), sorted(os.listdir(SHAPES)))
            for name in os.listdir(d):
                with open(os.path.join(d, name), "rb") as a, \
                        open(os.path.join(SHAPES, name), "rb") as b:
                    self.assertEqual(a.read(), b.read(), name)


if __name__ == "__main__":
    unittest.main()
