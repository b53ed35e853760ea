"""test_trace.py — end-to-end tests of trace ingest and the trace queries.

The focus of this file is `profan ingest` on every real trace generation in
../shared/fixtures (2021 capitalised categories through 2026 relative
timestamps, AMD, CPU-only, no rank, multi-rank) and the built-in queries and
views, checked against numbers computed independently in
trace_reference.py from the JSON.
"""
import glob
import os
import subprocess

import common
import trace_reference as ref
from common import ProfanTest, shared

TRACES = [
    "hta-alexnet-a100.json.gz", "hta-compare-base.json.gz",
    "hta-compare-test.json.gz", "hta-cpu-only-gloo-rank34.json.gz",
    "hta-diff-control-a100-rank3.json.gz", "hta-diff-test-v100-rank1.json.gz",
    "hta-event-sync-multistream.json.gz", "hta-mi250-rocm62.json.gz",
    "hta-no-rank.json.gz", "hta-triton.json.gz",
    "kineto-h100-2026-after.json", "kineto-h100-2026-before.json",
    "kineto-resnet50-2021.pt.trace.json.gz", "param-linear-2080ti.json.gz",
    "tracelens-b200-vllm-rank0.json.gz",
]

TABLE_OF = {
    "kernel": "SELECT count(*) AS n FROM kernel",
    "cpu_op": "SELECT count(*) AS n FROM cpu_op",
    "runtime": "SELECT count(*) AS n FROM runtime_call",
    "memcpy": "SELECT count(*) AS n FROM gpu_mem_op WHERE kind='memcpy'",
    "memset": "SELECT count(*) AS n FROM gpu_mem_op WHERE kind='memset'",
    "user_annotation": "SELECT count(*) AS n FROM annotation WHERE kind='user'",
    "gpu_user_annotation": "SELECT count(*) AS n FROM annotation WHERE kind='gpu_user'",
    "sync": "SELECT count(*) AS n FROM gpu_sync",
    "python_function": "SELECT count(*) AS n FROM python_function",
    "memory": "SELECT count(*) AS n FROM memory_event",
}


class TraceGenerations(ProfanTest):
    """Every fixture trace ingests and its rows match the JSON."""

    def check_trace(self, name):
        path = shared("traces", name)
        evs = common.events(path)
        self.ingest_ok(path)
        want = ref.counts(evs)
        for kind, sql in TABLE_OF.items():
            got = int(self.sql(sql)[0]["n"])
            self.assertEqual(got, want.get(kind, 0), "%s: %s" % (name, kind))
        for kind, sql in (("kernel", "SELECT coalesce(sum(dur), 0) AS s FROM kernel"),
                          ("cpu_op", "SELECT coalesce(sum(dur), 0) AS s FROM cpu_op")):
            got = self.sql(sql)[0]["s"]
            self.assertEqual(int(got or 0), ref.dur_sum_ns(evs, kind), name + " " + kind)

    def test_every_generation(self):
        for name in TRACES:
            with self.subTest(trace=name):
                self.setUp()
                try:
                    self.check_trace(name)
                finally:
                    self.tearDown()

    def test_relative_timestamps_use_base_time(self):
        path = shared("traces", "kineto-h100-2026-after.json")
        doc = common.load_json(path)
        base = doc["baseTimeNanoseconds"]
        k = [e for e in doc["traceEvents"] if e.get("cat") == "kernel"][0]
        self.ingest_ok(path)
        row = self.sql("SELECT ts, dur FROM kernel")[0]
        self.assertEqual(int(row["ts"]), base + ref.us_to_ns(k["ts"]))
        self.assertEqual(int(row["dur"]), ref.us_to_ns(k["dur"]))
        f = self.sql("SELECT time_regime, base_time_ns FROM run_file")[0]
        self.assertEqual(f["time_regime"], "relative_us")
        self.assertEqual(int(f["base_time_ns"]), base)

    def test_oldest_format_absolute_integer_us(self):
        path = shared("traces", "kineto-resnet50-2021.pt.trace.json.gz")
        evs = common.events(path)
        self.ingest_ok(path)
        first = min(ref.us_to_ns(e["ts"]) for e in evs if ref.kind_of(e) == "kernel")
        self.assertEqual(int(self.sql("SELECT min(ts) AS t FROM kernel")[0]["t"]), first)
        self.assertEqual(self.sql("SELECT time_regime FROM run_file")[0]["time_regime"],
                         "absolute_us")
        # string tids "stream 7" become stream 7
        self.assertEqual(self.sql("SELECT DISTINCT stream FROM kernel")[0]["stream"], "7")

    def test_rank_sources(self):
        self.ingest_ok(shared("traces", "hta-no-rank.json.gz"))
        f = self.sql("SELECT rank, rank_source FROM run_file")[0]
        self.assertEqual((f["rank"], f["rank_source"]), ("0", "default"))
        self.ingest_ok(shared("traces", "hta-cpu-only-gloo-rank34.json.gz"))
        f = self.sql("SELECT rank, rank_source FROM run_file ORDER BY id DESC")[0]
        self.assertEqual((f["rank"], f["rank_source"]), ("34", "distributedInfo"))


class MultiRank(ProfanTest):
    """The 8-rank dlrm run directory in one ingest."""

    def setUp(self):
        super().setUp()
        self.dir = shared("runs", "dlrm-8rank")
        self.files = sorted(glob.glob(os.path.join(self.dir, "*.gz")))
        self.ingest_fixture(self.dir)

    def test_eight_ranks_in_category_breakdown(self):
        # consistency only (pct is a share computed in SQL); each category's
        # time and count against a Python classification of the JSON:
        # test_trace_oracle.DlrmOracle
        rows = self.query("category-breakdown")
        self.assertEqual(sorted({int(r["rank"]) for r in rows}), list(range(8)))
        for rank in range(8):
            pct = sum(float(r["pct"]) for r in rows if int(r["rank"]) == rank)
            self.assertAlmostEqual(pct, 100.0, delta=0.05)

    def test_ranks_from_distributed_info_and_kernel_totals(self):
        for path in self.files:
            evs = common.events(path)
            rank = common.load_json(path)["distributedInfo"]["rank"]
            want = ref.kernel_totals(evs)
            got = {r["name"]: (int(r["n"]), int(r["t"])) for r in self.sql(
                "SELECT s.text AS name, sum(n) AS n, sum(total_ns) AS t"
                " FROM gpu_op_summary g JOIN string s ON s.id=g.name_id"
                " WHERE kind='kernel' AND rank=%d GROUP BY s.text" % rank)}
            self.assertEqual(got, want, path)

    def test_steps_match_profiler_step_annotations(self):
        rows = self.query("steps")
        for path in self.files:
            rank = common.load_json(path)["distributedInfo"]["rank"]
            want = ref.steps(common.events(path))
            got = {int(r["step"]): round(float(r["dur_ms"]) * 1e6)
                   for r in rows if int(r["rank"]) == rank}
            self.assertEqual(set(got), set(want))
            for k, v in want.items():
                self.assertAlmostEqual(got[k], v, delta=1000)

    def test_gpu_utilization_is_the_busy_union(self):
        rows = {(int(r["rank"]), int(r["device"])): r for r in self.query("gpu-utilization")}
        for path in self.files:
            rank = common.load_json(path)["distributedInfo"]["rank"]
            for dev, (busy, wall) in ref.gpu_busy(common.events(path)).items():
                r = rows[(rank, dev)]
                self.assertAlmostEqual(float(r["busy_ms"]), busy / 1e6, delta=0.0006)
                self.assertAlmostEqual(float(r["wall_ms"]), wall / 1e6, delta=0.0006)

    def test_step_breakdown_consistency(self):
        # consistency only: wall_ms is defined as the sum of the columns;
        # every class of every step against a priority sweep over the JSON:
        # test_trace_oracle (DlrmOracle, SixSteps)
        rows = self.query("step-breakdown")
        steps = {(int(r["rank"]), int(r["step"])): float(r["dur_ms"])
                 for r in self.query("steps")}
        parts = ("kernel_ms", "memcpy_ms", "memset_ms", "comm_ms", "runtime_ms",
                 "cpu_ms", "idle_ms")
        for r in rows:
            total = sum(float(r[p]) for p in parts)
            self.assertAlmostEqual(total, float(r["wall_ms"]), delta=0.01)
            if r["step"]:
                self.assertAlmostEqual(float(r["wall_ms"]),
                                       steps[(int(r["rank"]), int(r["step"]))],
                                       delta=0.01)

    def test_every_named_query_runs(self):
        names = [l.split()[0] for l in self.profan("queries").out.splitlines() if l.strip()]
        self.assertIn("top-kernels", names)
        for name in names:
            with self.subTest(query=name):
                r = self.profan("--format", "json", "query", name)
                if name.startswith("diff-"):
                    # a comparison needs its baseline (exit 2 without one)
                    self.assertEqual(r.rc, 2, name + ": " + r.err)
                    r = self.profan("--format", "json", "query", name,
                                    "--param", "baseline=latest")
                self.assertEqual(r.rc, 0, name + ": " + r.err)
                r.json()


class Linkage(ProfanTest):
    """Kernel -> runtime call -> CPU op links and steps."""

    def test_new_format_external_id_agrees(self):
        # Since 2024 a kernel's External id is its launching op's External id.
        path = shared("traces", "tracelens-b200-vllm-rank0.json.gz")
        self.ingest_ok(path)
        rows = self.sql(
            "SELECT count(*) AS n, sum(k.external_id = o.external_id) AS same"
            " FROM kernel k JOIN cpu_op o ON o.id = k.op_id")
        self.assertGreater(int(rows[0]["n"]), 500)
        self.assertEqual(rows[0]["n"], rows[0]["same"])

    def test_every_kernel_is_linked_to_its_launch(self):
        # launch linkage only; kernel.step against the step of the launch in
        # the JSON: test_trace_oracle.SixSteps
        self.ingest_ok(shared("traces", "hta-alexnet-a100.json.gz"))
        rows = self.sql("SELECT count(*) AS n, count(runtime_id) AS linked FROM kernel")
        self.assertEqual(rows[0]["n"], rows[0]["linked"])


class BadInput(ProfanTest):
    """Each kind of bad file gets its own message; nothing is stored."""

    def write(self, name, data):
        p = os.path.join(self.tmp.name, name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def assert_fails(self, path, message):
        self.ingest_ok(shared("traces", "hta-compare-base.json.gz"))
        before = self.db_bytes()
        r = self.profan("ingest", path)
        self.assertEqual(r.rc, 6)
        self.assertEqual(r.err.strip(), message)
        self.assertEqual(self.db_bytes(), before)

    def test_truncated(self):
        p = self.write("t.json", b'{"traceEvents": [{"ph": "X", "cat": "kernel"')
        self.assert_fails(p, "profan: %s:44: truncated JSON: the file ends inside the trace" % p)

    def test_not_json(self):
        p = self.write("t.json", b'{"traceEvents": [} ]}')
        r = self.profan("ingest", p)
        self.assertEqual(r.rc, 6)
        self.assertEqual(r.err.strip(), "profan: %s:17: invalid JSON: unallowed token at this point in JSON text" % p)

    def test_wrong_shape(self):
        p = self.write("t.json", b'{"traceEvents": {"a": 1}}')
        self.assert_fails(p, "profan: %s:16: \"traceEvents\" is not an array" % p)
        p = self.write("u.json", b'{"schemaVersion": 1}')
        self.assert_fails(p, "profan: %s: no \"traceEvents\" array: not a PyTorch profiler trace" % p)

    def test_empty(self):
        p = self.write("t.json", b"")
        self.assert_fails(p, "profan: %s:0: empty file" % p)

    def test_truncated_gzip(self):
        import gzip
        data = gzip.compress(b'{"traceEvents": [' + b'{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":1},' * 2000 + b'{}]}')
        p = self.write("t.json.gz", data[: len(data) // 2])
        r = self.profan("ingest", p)
        self.assertEqual(r.rc, 6)
        self.assertIn("%s:" % p, r.err)

    def test_failed_ingest_into_new_db_leaves_no_file(self):
        p = self.write("t.json", b"{")
        r = self.profan("ingest", p)
        self.assertEqual(r.rc, 6)
        self.assertFalse(os.path.exists(self.db))
        self.assertEqual(os.listdir(self.tmp.name), ["t.json"])

    def test_new_db_is_built_aside_then_put_in_place_in_wal_mode(self):
        # a killed fresh ingest leaves DB.new-PID; the next one removes it
        stale = self.db + ".new-999999999"
        self.write(os.path.basename(stale), b"half a database")
        r = self.profan("ingest", shared("traces", "hta-triton.json.gz"))
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(sorted(os.listdir(self.tmp.name)), ["test.db"])
        mode = subprocess.run(["sqlite3", self.db, "PRAGMA journal_mode"],
                              capture_output=True, text=True).stdout.strip()
        self.assertEqual(mode, "wal")
        ok = subprocess.run(["sqlite3", self.db, "PRAGMA integrity_check"],
                            capture_output=True, text=True).stdout.strip()
        self.assertEqual(ok, "ok")
        self.assertEqual(self.query("top-kernels")[0]["count"], "1")

    def test_unknown_files_in_a_directory_are_listed(self):
        d = os.path.join(self.tmp.name, "run")
        os.mkdir(d)
        self.write("run/notes.txt", b"hello")
        self.write("run/config.json", b'{"lr": 0.1}')
        with open(shared("traces", "hta-triton.json.gz"), "rb") as f:
            self.write("run/trace.json.gz", f.read())
        r = self.profan("ingest", d)
        self.assertEqual(r.rc, 0, r.err)
        self.assertIn("%s/config.json: skipped: JSON without \"traceEvents\" in its first MiB" % d, r.err)
        self.assertIn("%s/notes.txt: skipped: not a trace, memory snapshot or NCCL log" % d, r.err)


class RunsAndCli(ProfanTest):

    def test_duplicate_content_is_reported_and_replace_replaces(self):
        p = shared("traces", "hta-triton.json.gz")
        self.ingest_ok(p)
        r = self.profan("ingest", p)
        self.assertEqual(r.rc, 0)
        self.assertIn("already in the database as run 1", r.err)
        self.assertEqual(self.sql("SELECT count(*) AS n FROM run")[0]["n"], "1")
        self.ingest_ok(p, extra=("--replace",))
        # run ids are never reused
        self.assertEqual(self.sql("SELECT id FROM run")[0]["id"], "2")
        self.assertEqual(self.sql("SELECT count(*) AS n FROM kernel")[0]["n"], "1")

    def test_plain_trace_hashed_while_parsed_matches_hash_up_front(self):
        # A plain trace whose size matches no stored file is hashed by its
        # parser thread; one that may be a copy is hashed before the parse.
        # Both must give the same hashes, and copies must still be found.
        with open(shared("traces", "kineto-h100-2026-before.json"), "rb") as f:
            data = f.read()
        def write(name, blob):
            p = os.path.join(self.tmp.name, name)
            with open(p, "wb") as f:
                f.write(blob)
            return p
        a = write("a.json", data)
        i = data.index(b'"dur": ') + len(b'"dur": ')
        twin = data[:i] + (b"8" if data[i:i + 1] != b"8" else b"7") + data[i + 1:]
        b = write("b.json", twin)          # same size, other content
        self.ingest_ok(a)                       # hashed while parsed
        r = self.profan("ingest", a)
        self.assertIn("already in the database as run 1", r.err)
        self.ingest_ok(b)                       # same size: hashed up front
        rows = self.sql("SELECT r.id, r.content_hash, f.hash, f.bytes FROM run r"
                        " JOIN run_file f ON f.run_id = r.id ORDER BY r.id")
        self.assertEqual(len(rows), 2)
        self.assertEqual(rows[0]["bytes"], str(len(data)))
        self.assertEqual(rows[1]["bytes"], str(len(data)))
        self.assertNotEqual(rows[0]["hash"], rows[1]["hash"])
        self.assertNotEqual(rows[0]["content_hash"], rows[1]["content_hash"])
        # a fresh database hashing b while parsing agrees with run 2
        other = self.db + ".other"
        r = common.run("ingest", b, db=other)
        self.assertEqual(r.rc, 0, r.err)
        r = common.run("--format", "csv", "sql", "SELECT r.content_hash, f.hash"
                       " FROM run r JOIN run_file f ON f.run_id = r.id", db=other)
        self.assertEqual(r.rows(), [{"content_hash": rows[1]["content_hash"],
                                     "hash": rows[1]["hash"]}])

    def test_tags_runs_show_rm(self):
        self.ingest_ok(shared("traces", "hta-triton.json.gz"),
                       extra=("--tag", "git=abc123", "--tag", "cluster=a", "--name", "t1"))
        rows = self.profan("--format", "csv", "runs", "--tag", "git=abc123").rows()
        self.assertEqual([r["name"] for r in rows], ["t1"])
        self.assertEqual(self.profan("--format", "csv", "runs", "--tag", "git=zzz").rows(), [])
        r = self.profan("show", "t1")
        self.assertEqual(r.rc, 0, r.err)
        self.assertIn("hta-triton.json.gz", r.out)
        r = self.profan("rm", "t1")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(self.sql("SELECT count(*) AS n FROM kernel")[0]["n"], "0")
        self.assertEqual(self.sql("SELECT count(*) AS n FROM string")[0]["n"], "0")
        r = self.profan("show", "t1")
        self.assertEqual(r.rc, 2)
        self.assertIn("no run 't1'", r.err)

    def test_formats(self):
        self.ingest_ok(shared("traces", "hta-triton.json.gz"))
        j = self.profan("--format", "json", "query", "top-kernels").json()
        self.assertEqual(j[0]["kind"], "kernel")
        self.assertEqual(j[0]["count"], 1)
        md = self.profan("--format", "markdown", "query", "top-kernels").out
        self.assertTrue(md.startswith("| kind"), md)
        t = self.profan("query", "top-kernels").out
        self.assertIn("total_ms", t.splitlines()[0])

    def test_params_are_bound_and_checked(self):
        self.ingest_ok(shared("runs", "dlrm-8rank"))
        rows = self.query("top-kernels", "--param", "rank=3", "--limit", "2")
        self.assertEqual(len(rows), 2)
        r = self.profan("query", "top-kernels", "--param", "nope=1")
        self.assertEqual(r.rc, 2)
        self.assertEqual(r.err.strip(), "profan: query 'top-kernels' has no parameter"
                         " 'nope' (it takes: rank, kind, limit)")
        r = self.profan("--format", "csv", "query", "top-kernels", "--param",
                        "kind=x'); DROP TABLE run; --")
        self.assertEqual(r.rc, 2)      # typed: kind is kernel|memcpy|memset
        self.assertEqual(r.out, "")
        self.assertEqual(self.sql("SELECT count(*) AS n FROM run")[0]["n"], "1")

    def test_usage_errors(self):
        r = self.profan("frobnicate")
        self.assertEqual(r.rc, 2)
        self.assertIn("unknown command 'frobnicate'", r.err)
        r = self.profan("ingest")
        self.assertEqual(r.rc, 2)
        r = self.profan("query", "no-such-query")
        self.assertEqual(r.rc, 2)
        r = common.run("--version")
        self.assertRegex(r.out, r"^profan \d+\.\d+\.\d+ \(schema \d+\)\n$")

    def test_newer_database_is_refused(self):
        self.ingest_ok(shared("traces", "hta-triton.json.gz"))
        subprocess.run(["sqlite3", self.db, "PRAGMA user_version=999"], check=True)
        r = self.profan("runs")
        self.assertEqual(r.rc, 7)
        self.assertIn("database schema version 999 is newer than this profan", r.err)

    def test_user_queries_directory(self):
        d = os.path.join(self.tmp.name, "q")
        os.mkdir(d)
        with open(os.path.join(d, "mine.sql"), "w") as f:
            f.write("-- name: my-count\n-- description: kernels\n"
                    "SELECT count(*) AS n FROM kernel WHERE run_id = :run;\n")
        self.ingest_ok(shared("traces", "hta-triton.json.gz"))
        r = self.profan("--format", "csv", "query", "my-count", env={"PROFAN_QUERIES": d})
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(r.rows(), [{"n": "1"}])


class Views(ProfanTest):
    """The views work in the stock sqlite3 shell."""

    def test_views_in_sqlite3_shell(self):
        self.ingest_ok(shared("runs", "dlrm-8rank"))
        for view in ("kernel_category", "category_breakdown", "top_kernels",
                     "step_times", "gpu_utilization", "kernel_named", "cpu_op_named"):
            p = subprocess.run(["sqlite3", self.db, "SELECT count(*) FROM %s" % view],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, view + p.stderr)
            self.assertGreater(int(p.stdout), 0, view)
        p = subprocess.run(["sqlite3", "-csv", self.db,
                            "SELECT count(DISTINCT rank) FROM category_breakdown WHERE run_id = 1"],
                           capture_output=True, text=True)
        self.assertEqual(p.stdout.strip(), "8")

    def test_user_category_rule_changes_views(self):
        self.ingest_ok(shared("traces", "hta-triton.json.gz"))
        subprocess.run(["sqlite3", self.db,
                        "INSERT INTO category_rule VALUES('detailed', 1, 'triton', 'Mine')"],
                       check=True)
        rows = self.query("category-breakdown")
        self.assertEqual([r["category"] for r in rows], ["Mine"])


class Docs(ProfanTest):

    def test_every_command_is_in_the_readme_and_has_help(self):
        with open(os.path.join(common.ROOT, "README.md")) as f:
            readme = f.read()
        out = common.run("--help").out
        cmds = [l.split()[0] for l in out.split("Commands:")[1].split("Global")[0].splitlines()
                if l.strip()]
        self.assertGreater(len(cmds), 5)
        for c in cmds:
            self.assertIn("profan %s" % c, readme, c)
            r = common.run(c, "--help")
            self.assertEqual(r.rc, 0)
            self.assertTrue(r.out.startswith("usage: profan %s" % c))

    def test_every_named_query_is_in_the_catalogue_page(self):
        # docs/queries.md is generated (test_docs checks it is current);
        # here: every query `profan queries` lists has its section there
        with open(os.path.join(common.ROOT, "docs", "queries.md")) as f:
            page = f.read()
        for line in common.run("queries").out.splitlines():
            if line.strip():
                name = line.split()[0]
                self.assertIn("\n## %s\n" % name, page,
                              "query %s is not in docs/queries.md" % name)


class Migration(ProfanTest):
    """Versions: schema/001-baseline.sql (version 95, the last file it
    folded) and the files numbered after it; user_version is the number
    of the last file applied."""

    def schema_files(self):
        import glob as g
        return sorted(g.glob(os.path.join(common.ROOT, "schema",
                                          "[0-9][0-9][0-9]-*.sql")))

    def test_baseline_database_is_migrated(self):
        # a database at the baseline's version: the files after it are
        # applied by the first writing command (none yet: it stays)
        files = self.schema_files()
        sql = open(files[0]).read()
        sql += "PRAGMA user_version=%d; PRAGMA application_id=%d;" % (
            common.SCHEMA_BASELINE, 0x50464442)
        subprocess.run(["sqlite3", self.db], input=sql, text=True, check=True)
        self.ingest_ok(shared("traces", "hta-triton.json.gz"))
        v = subprocess.run(["sqlite3", self.db, "PRAGMA user_version"],
                           capture_output=True, text=True).stdout.strip()
        self.assertEqual(int(v), common.schema_version())
        self.assertEqual(self.query("top-kernels")[0]["count"], "1")

    def test_read_only_commands_do_not_migrate(self):
        # a profan file at version 0 (made, never migrated): older
        sql = "PRAGMA application_id=%d;" % 0x50464442
        subprocess.run(["sqlite3", self.db], input=sql, text=True, check=True)
        r = self.profan("runs")
        self.assertEqual(r.rc, 7)
        self.assertEqual(r.err, "profan: %s: database schema version 0 is"
                         " older than %d; run any writing command (e.g."
                         " 'profan ingest') to migrate it\n"
                         % (self.db, common.schema_version()))
        self.ingest_ok(shared("traces", "hta-triton.json.gz"))
        self.assertEqual(self.query("top-kernels")[0]["count"], "1")

    def test_development_database_is_refused(self):
        # a development build's database (application_id "PROF",
        # user_version = count of files): not mistaken for a version of
        # the baseline's numbering, whatever its count; never touched
        for ver in (1, 3, 27, 45):
            with open(self.db, "wb"):
                pass
            subprocess.run(["sqlite3", self.db],
                           input="CREATE TABLE run(id INTEGER PRIMARY KEY);"
                           "PRAGMA user_version=%d; PRAGMA application_id=%d;"
                           % (ver, 0x50524f46), text=True, check=True)
            with open(self.db, "rb") as f:
                before = f.read()
            for cmd in (("runs",), ("ingest", shared("traces",
                                                     "hta-triton.json.gz"))):
                r = self.profan(*cmd)
                self.assertEqual(r.rc, 7)
                self.assertEqual(
                    r.err, "profan: %s: database made by a development build"
                    " of profan before the schema baseline (old schema"
                    " version %d); this profan cannot read it: ingest the"
                    " runs' files again into a new database\n"
                    % (self.db, ver))
            with open(self.db, "rb") as f:
                self.assertEqual(f.read(), before)

    def test_not_a_profan_database(self):
        subprocess.run(["sqlite3", self.db, "CREATE TABLE t(x)"], check=True)
        r = self.profan("ingest", shared("traces", "hta-triton.json.gz"))
        self.assertEqual(r.rc, 7)
        self.assertEqual(r.err.strip(), "profan: %s: not a profan database (application_id 0)"
                         % self.db)


class QueryBaseline(ProfanTest):

    def test_query_accepts_a_named_baseline(self):
        self.ingest_ok(shared("traces", "hta-triton.json.gz"), extra=("--name", "old"))
        self.ingest_ok(common.local("sample-run"), extra=("--name", "new"))
        r = self.profan("baseline", "set", "main", "old")
        self.assertEqual(r.rc, 0, r.err)
        rows = self.profan("--format", "csv", "query", "top-kernels",
                           "--baseline", "main").rows()
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["count"], "1")
        r = self.profan("query", "top-kernels", "--baseline", "main", "--run", "new")
        self.assertEqual(r.rc, 2)
        self.assertIn("give --run or --baseline, not both", r.err)
