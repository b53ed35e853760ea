"""test_merge.py — `profan merge` (issue 19): shards of one run merged into
one run are what one ingest of all the files stores.

The dlrm-8rank fixture is ingested once whole and once as 4 shards of 2
ranks each; every named query must print the same rows for both.  The
ranks, files and content hash of the merged run are checked against the
input files themselves (distributedInfo read here with json/gzip).  Merge
failures — a corrupt shard, a shard of another job (its times an hour
later), another world size, colliding ranks, a merge killed with SIGKILL —
must leave the target byte-for-byte as it was; merging twice skips.
"""
import csv
import gzip
import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import time

from common import ProfanTest, PROFAN, shared, load_json

RUN = ("runs", "dlrm-8rank")


def rank_files():
    d = shared(*RUN)
    return sorted(os.path.join(d, f) for f in os.listdir(d))


def write_variant(src, dst, shift_us=0, world=None, rank=None):
    """A copy of trace src with every ts moved by shift_us, and
    distributedInfo's world_size / rank replaced when given."""
    doc = load_json(src)
    for e in doc["traceEvents"]:
        if "ts" in e and shift_us:
            e["ts"] = e["ts"] + shift_us
    if world is not None:
        doc["distributedInfo"]["world_size"] = world
    if rank is not None:
        doc["distributedInfo"]["rank"] = rank
    with open(dst, "w") as f:
        json.dump(doc, f)
    return dst


class MergeTest(ProfanTest):

    def setUp(self):
        super().setUp()
        self.files = rank_files()
        self.assertEqual(len(self.files), 8)

    def shard(self, name, paths):
        """Ingest paths into their own database (one node's shard)."""
        db = os.path.join(self.tmp.name, name + ".db")
        r = subprocess.run([PROFAN, "--db", db, "ingest", "--name", "dlrm",
                            "--quiet"] + list(paths), capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return db

    def four_shards(self):
        return [self.shard("s%d" % i, self.files[2 * i:2 * i + 2])
                for i in range(4)]

    def merge(self, *shards, db=None, name="dlrm"):
        args = [PROFAN, "merge", "--into", db or self.db]
        if name:
            args += ["--name", name]
        return subprocess.run(args + list(shards), capture_output=True,
                              text=True)

    def queries(self):
        r = self.profan("--format", "csv", "queries")
        self.assertEqual(r.rc, 0, r.err)
        return [row["name"] for row in csv.DictReader(io.StringIO(r.out))]

    def query_out(self, db, name):
        args = ["--db", db, "--format", "csv", "--no-truncate", "query",
                name, "--run", "dlrm"]
        if name.startswith("diff-"):
            args += ["--param", "baseline=dlrm"]
        r = subprocess.run([PROFAN] + args, capture_output=True, text=True)
        return r.returncode, r.stdout, r.stderr


class MergeEqualsIngest(MergeTest):

    def test_merge_equals_one_ingest_for_every_query(self):
        whole = os.path.join(self.tmp.name, "whole.db")
        r = subprocess.run([PROFAN, "--db", whole, "ingest", "--name", "dlrm",
                            "--quiet"] + self.files, capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.merge(*self.four_shards())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stderr, r"^profan: merged 4 shards into run 1 "
                         r"\(dlrm\): 8 files, \d+ rows, [0-9.]+ s\n$")
        # the runs were made a second or so apart: the same creation time
        # both ways (trend and runs print it)
        for db in (whole, self.db):
            with sqlite3.connect(db) as c:
                c.execute("UPDATE run SET created_at='2026-01-01T00:00:00Z'")
            c.close()
        names = self.queries()
        self.assertGreater(len(names), 40)
        nonempty = 0
        for q in names:
            a, b = self.query_out(whole, q), self.query_out(self.db, q)
            self.assertEqual(a, b, "query %s differs" % q)
            if a[0] == 0 and a[1].count("\n") > 1:
                nonempty += 1
        # most queries have rows on this run: the comparison is not vacuous
        self.assertGreater(nonempty, 25)
        # every per-run table holds as many rows both ways
        tabs = self.sql("SELECT name FROM sqlite_master m WHERE type='table'"
                        " AND EXISTS(SELECT 1 FROM pragma_table_info(m.name)"
                        " WHERE name='run_id')")
        for t in (row["name"] for row in tabs):
            n = "SELECT count(*) AS n FROM \"%s\"" % t
            a = subprocess.run([PROFAN, "--db", whole, "--format", "csv",
                                "sql", n], capture_output=True, text=True)
            b = self.sql(n)
            self.assertEqual(a.stdout.splitlines()[1], b[0]["n"], t)

    def test_merge_run_files_ranks_and_content_hash(self):
        r = self.merge(*self.four_shards())
        self.assertEqual(r.returncode, 0, r.stderr)
        want = sorted(load_json(f)["distributedInfo"]["rank"]
                      for f in self.files)
        got = self.sql("SELECT rank FROM run_file ORDER BY rank")
        self.assertEqual([int(x["rank"]) for x in got], want)
        sizes = sorted(os.path.getsize(f) for f in self.files)
        got = self.sql("SELECT bytes FROM run_file ORDER BY bytes")
        self.assertEqual([int(x["bytes"]) for x in got], sizes)
        # the content hash is the one ingest computes: ingesting all the
        # files into the merged database finds the merged run
        r = self.profan("ingest", *self.files)
        self.assertEqual(r.rc, 0, r.err)
        self.assertIn("already in the database as run 1 (same content)",
                      r.err)

    def test_merge_twice_skips_and_appends_new_shards(self):
        s = self.four_shards()
        r = self.merge(s[0], s[1])
        self.assertEqual(r.returncode, 0, r.stderr)
        before = self.db_bytes()
        r = self.merge(s[1], s[0])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr,
                         "profan: %s: already merged (its 2 files are in run"
                         " 1); skipped\n"
                         "profan: %s: already merged (its 2 files are in run"
                         " 1); skipped\n"
                         "profan: nothing merged: every shard is already in"
                         " %s\n" % (s[1], s[0], self.db))
        self.assertEqual(self.db_bytes(), before)
        # the other two shards join the same run (its name)
        r = self.merge(s[2], s[1], s[3])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("merged 2 shards into run 1 (dlrm, added to it): 8 "
                      "files", r.stderr)
        got = self.sql("SELECT count(DISTINCT rank) AS n, count(*) AS f,"
                       " count(DISTINCT run_id) AS r FROM run_file")
        self.assertEqual(got, [{"n": "8", "f": "8", "r": "1"}])
        # and the collectives are matched over all 8 ranks again
        got = self.sql("SELECT min(group_size) AS g, count(DISTINCT rank) AS"
                       " n FROM collective")
        self.assertEqual(got, [{"g": "8", "n": "8"}])


class MergeFailures(MergeTest):

    def setUp(self):
        super().setUp()
        self.s = self.four_shards()
        r = self.merge(self.s[0], self.s[1])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.before = self.db_bytes()

    def fails(self, rc, message, *shards):
        r = self.merge(*shards)
        self.assertEqual((r.returncode, r.stderr), (rc, message))
        self.assertEqual(self.db_bytes(), self.before)
        self.assertFalse(os.path.exists(self.db + "-wal"))

    def test_merge_corrupt_shard_changes_nothing(self):
        bad = os.path.join(self.tmp.name, "bad.db")
        shutil.copy(self.s[3], bad)
        with open(bad, "r+b") as f:
            f.seek(16384 * 3)
            f.write(b"\xa5" * 16384 * 4)
        r = self.merge(self.s[2], bad)
        self.assertEqual(r.returncode, 6, r.stderr)
        self.assertRegex(r.stderr, r"^profan: %s: .*malformed.*\n$" % bad)
        self.assertEqual(self.db_bytes(), self.before)
        notdb = os.path.join(self.tmp.name, "notdb.db")
        with open(notdb, "w") as f:
            f.write("hello\n" * 1000)
        self.fails(6, "profan: %s: not a database (or unreadable): file is"
                   " not a database\n" % notdb, self.s[2], notdb)

    def test_merge_shard_of_another_job(self):
        later = [write_variant(f, os.path.join(self.tmp.name, "l%d.json" % i),
                               shift_us=3600 * 10**6)
                 for i, f in enumerate(self.files[6:])]
        other = self.shard("other", later)
        # the gap between the steps (ProfilerStep#N) of ranks 0-3 (merged)
        # and those of the moved ranks 6 and 7
        def steps(f):
            return [(e["ts"], e["ts"] + e["dur"])
                    for e in load_json(f)["traceEvents"]
                    if e.get("name", "").startswith("ProfilerStep#")]
        end = max(b for f in self.files[:4] for _, b in steps(f))
        start = min(a for f in later for a, _ in steps(f))
        self.fails(2, "profan: %s: its steps are %.1f s away from those of"
                   " run dlrm: not the same job\n"
                   % (other, (start - end) / 1e6), self.s[2], other)

    def test_merge_world_size_mismatch(self):
        w16 = [write_variant(f, os.path.join(self.tmp.name, "w%d.json" % i),
                             world=16)
               for i, f in enumerate(self.files[6:])]
        other = self.shard("w16", w16)
        self.fails(2, "profan: %s: world size 16, but run dlrm has world size"
                   " 8: not the same job\n" % other, other)
        # named after where the world size was first seen, not the last
        # shard that agreed with it
        self.fails(2, "profan: %s: world size 16, but run dlrm has world size"
                   " 8: not the same job\n" % other, self.s[2], other)

    def test_merge_colliding_ranks(self):
        # rank 1 again, in a trace of other content (moved by 1 µs)
        again = [write_variant(self.files[6], os.path.join(self.tmp.name,
                                                           "r1.json"),
                               shift_us=1, rank=1)]
        collide = self.shard("collide", again)
        self.fails(2, "profan: %s: rank 1 is also in run dlrm: colliding"
                   " ranks\n" % collide, collide)
        # between two shards of one merge: s2 holds ranks 4 and 5
        five = [write_variant(self.files[7], os.path.join(self.tmp.name,
                                                          "r5.json"),
                              shift_us=1, rank=5)]
        collide5 = self.shard("collide5", five)
        self.fails(2, "profan: %s: rank 5 is also in %s: colliding ranks\n"
                   % (collide5, self.s[2]), self.s[2], collide5)
        # a shard half merged already
        half = self.shard("half", [self.files[3], self.files[6]])
        self.fails(2, "profan: %s: 1 of its 2 files are already in run 1:"
                   " merge each shard once\n" % half, half)

    def test_merge_killed_leaves_target_unchanged(self):
        with open(self.db, "rb") as f:
            main = f.read()
        killed = 0
        for delay in (0.0, 0.01, 0.03, 0.05, 0.08, 0.12, 0.2):
            p = subprocess.Popen([PROFAN, "merge", "--into", self.db,
                                  "--name", "dlrm", self.s[2], self.s[3]],
                                 stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            time.sleep(delay)
            p.send_signal(signal.SIGKILL)
            rc = p.wait()
            if rc == 0:
                break                 # it finished before the kill
            self.assertEqual(rc, -signal.SIGKILL)
            with open(self.db, "rb") as f:
                same = f.read() == main
            n = self.sql("SELECT count(*) AS n FROM run_file")[0]["n"]
            if n == "8":
                break                 # killed after its commit: complete
            self.assertEqual(n, "4")
            self.assertTrue(same, "killed after %g s" % delay)
            killed += 1
        # most kills land inside the merge (it takes 0.1-0.3 s)
        self.assertGreaterEqual(killed, 2)


class MergeOldShard(MergeTest):

    def test_merge_shard_of_a_development_build_is_refused(self):
        """A shard made by a development build before the schema baseline
        (its user_version 7 counts files): refused with db_open's line, the
        shard and the target untouched."""
        old = os.path.join(self.tmp.name, "old.db")
        with gzip.open(os.path.join(os.path.dirname(__file__), "data",
                                    "schema7-842c692.sqlite.gz")) as f:
            data = f.read()
        with open(old, "wb") as f:
            f.write(data)
        r = self.merge(old, name=None)
        self.assertEqual(r.returncode, 6)
        self.assertEqual(r.stderr, "profan: %s: database made by a development"
                         " build of profan before the schema baseline (old"
                         " schema version 7); this profan cannot read it:"
                         " ingest the runs' files again into a new database\n"
                         % old)
        with open(old, "rb") as f:
            self.assertEqual(f.read(), data)
        self.assertFalse(os.path.exists(self.db))

class MergeMixedInputs(MergeTest):

    def test_merge_snapshots_and_nccl_logs_equal_one_ingest(self):
        """Shards holding memory snapshots and an NCCL log beside the
        traces (the memory tables' own ids: snapshot, segment, block,
        frame, stack; nccl_comm rows) merge to what one ingest stores."""
        sample = os.path.join(os.path.dirname(os.path.dirname(
            os.path.dirname(os.path.abspath(__file__)))), "fixtures",
            "sample-run")
        traces = sorted(os.path.join(sample, f) for f in os.listdir(sample))
        snaps = [shared("snapshots", "tomi-small.pickle"),
                 shared("snapshots", "llm-inference-torch20-history.pickle")]
        nccl = shared("nccl", "ddp-2rank-interleaved.log")
        a = self.shard("a", [traces[0], snaps[0], nccl])
        b = self.shard("b", [traces[1], snaps[1]])
        whole = os.path.join(self.tmp.name, "whole.db")
        r = subprocess.run([PROFAN, "--db", whole, "ingest", "--name", "dlrm",
                            "--quiet"] + traces + snaps + [nccl],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.merge(a, b)
        self.assertEqual(r.returncode, 0, r.stderr)
        for db in (whole, self.db):
            with sqlite3.connect(db) as c:
                c.execute("UPDATE run SET created_at='2026-01-01T00:00:00Z'")
            c.close()
        nonempty = 0
        for q in self.queries():
            got = self.query_out(self.db, q)
            self.assertEqual(self.query_out(whole, q), got, q)
            nonempty += got[0] == 0 and got[1].count("\n") > 1
        self.assertGreater(nonempty, 40)
        n = self.sql("SELECT (SELECT count(*) FROM snapshot) AS s,"
                     " (SELECT count(*) FROM nccl_comm) AS c,"
                     " (SELECT count(*) FROM frame) AS f")[0]
        self.assertEqual(n["s"], "2")
        self.assertGreater(int(n["c"]), 0)
        self.assertGreater(int(n["f"]), 0)


class MergeConcurrent(MergeTest):

    def test_merge_concurrent_ranks_into_one_node_shard(self):
        """Eight ranks of a node merging their own one-file databases into
        the node's shard at the same moment (what profan_torch does): the
        first creates it, the others wait for the lock; one run of 8."""
        ones = [self.shard("one%d" % i, [f]) for i, f in
                enumerate(self.files)]
        node = os.path.join(self.tmp.name, "node.db")
        procs = [subprocess.Popen([PROFAN, "merge", "--quiet", "--into", node,
                                   "--name", "dlrm", s],
                                  stderr=subprocess.PIPE, text=True)
                 for s in ones]
        for p in procs:
            _, err = p.communicate()
            self.assertEqual(p.returncode, 0, err)
        p = subprocess.run([PROFAN, "--db", node, "--format", "csv", "sql",
                            "SELECT count(*) AS f, count(DISTINCT run_id) AS"
                            " r, count(DISTINCT rank) AS k FROM run_file"],
                           capture_output=True, text=True)
        self.assertEqual(p.stdout.splitlines()[1], "8,1,8")
