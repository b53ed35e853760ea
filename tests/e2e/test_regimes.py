"""test_regimes.py — timestamp regimes and rank inference, end to end.

Issue #23: absolute_frac_us had no fixture, unknown_origin was never
asserted, a run mixing regimes was untested, the rank from a trace's file
name was never checked end to end, and two rank-less traces in one run
silently became rank 0 and merged.  The fixtures are
fixtures/regimes/*.json (made by fixtures/regimes/gen.py, checked here to
be current); every expected timestamp is the JSON's decimal text converted
here (json with parse_float=Decimal, never through a double), plus the
base time.

Decided behaviour (README "ingest"): a trace with neither distributedInfo
nor a rank in its file name takes rank 0 when it is the only trace of the
run, and is refused when the run has other traces (rank 0 would merge it
with another rank); a trace of unknown clock origin sharing a run with an
epoch-based one is ingested with a note that their times do not line up.
"""
import decimal
import importlib.util
import json
import os
import shutil

import common
import trace_reference as ref
from common import ProfanTest

FIX = os.path.join(common.ROOT, "fixtures", "regimes")
# fixtures/regimes/gen.py under a name of its own (other fixtures have a
# gen.py too)
_spec = importlib.util.spec_from_file_location("regimes_gen", os.path.join(FIX, "gen.py"))
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

TABLES = (("kernel", "kernel"), ("cpu_op", "cpu_op"), ("runtime", "runtime_call"))


def expected_rows(text):
    """{table: sorted [(ts_ns, dur_ns)]} from the trace's decimal text."""
    doc = json.loads(text, parse_float=decimal.Decimal)
    base = doc.get("baseTimeNanoseconds", 0)
    out = {t: [] for _, t in TABLES}
    for e in doc["traceEvents"]:
        for kind, table in TABLES:
            if ref.kind_of(e) == kind:
                out[table].append((base + ref.us_to_ns(e["ts"]), ref.us_to_ns(e["dur"])))
    return {t: sorted(v) for t, v in out.items()}


class Regimes(ProfanTest):

    def stored_rows(self, rank=None):
        out = {}
        for _, table in TABLES:
            where = "" if rank is None else " WHERE rank = %d" % rank
            out[table] = sorted((int(r["ts"]), int(r["dur"])) for r in self.sql(
                "SELECT ts, dur FROM %s%s" % (table, where)))
        return out

    def test_fixtures_are_current(self):
        for name, (text, _) in gen.CASES.items():
            with open(os.path.join(FIX, name)) as f:
                self.assertEqual(f.read(), text, name)

    def test_each_regime_alone(self):
        seen = set()
        for name, (text, regime) in gen.CASES.items():
            with self.subTest(fixture=name):
                self.tearDown()
                self.setUp()
                self.ingest_ok(os.path.join(FIX, name))
                f = self.sql("SELECT time_regime, base_time_ns FROM run_file")
                doc = json.loads(text)
                self.assertEqual(f, [{"time_regime": regime, "base_time_ns":
                                      str(doc.get("baseTimeNanoseconds", ""))}])
                self.assertEqual(self.stored_rows(), expected_rows(text))
                # every row carries the file's rank (also when it came last)
                rank = str(doc["distributedInfo"]["rank"])
                for _, table in TABLES:
                    self.assertEqual(self.sql("SELECT DISTINCT rank FROM %s" % table),
                                     [{"rank": rank}], table)
                seen.add(regime)
        self.assertEqual(seen, {"relative_us", "absolute_us", "absolute_frac_us",
                                "unknown_origin"})

    def test_fractional_microseconds_are_exact(self):
        # 1700000000000005.185 us is not a double: the stored value must
        # come from the digits (a double would give ...005200 ns)
        self.ingest_ok(os.path.join(FIX, "regime-absolute_frac_us.json"))
        self.assertEqual(self.sql("SELECT ts FROM kernel"),
                         [{"ts": "1700000000000005185"}])

    def test_epoch_regimes_in_one_run_line_up(self):
        # relative (base first and base last), absolute and absolute with
        # fractions: four ranks on one clock, no note
        d = os.path.join(self.tmp.name, "run")
        os.mkdir(d)
        names = ("regime-relative_us.json", "regime-relative_late_base.json",
                 "regime-absolute_us.json", "regime-absolute_frac_us.json")
        for n in names:
            shutil.copy(os.path.join(FIX, n), d)
        r = self.ingest_ok(d)
        self.assertNotIn("note: ", r.err.replace("no ProfilerStep", ""))
        self.assertNotIn("unknown origin", r.err)
        got = {x["path"]: (x["rank"], x["time_regime"]) for x in self.sql(
            "SELECT path, rank, time_regime FROM run_file")}
        for rank, n in enumerate(names):
            self.assertEqual(got[os.path.join(d, n)], (str(rank), gen.CASES[n][1]))
            self.assertEqual(self.stored_rows(rank), expected_rows(gen.CASES[n][0]), n)
        # one clock: every rank's kernel within 200 us of the others
        ts = [int(x["t"]) for x in self.sql("SELECT min(ts) AS t FROM kernel GROUP BY rank")]
        self.assertEqual(len(ts), 4)
        self.assertLess(max(ts) - min(ts), 200000)

    def test_unknown_origin_with_an_epoch_trace_is_noted(self):
        d = os.path.join(self.tmp.name, "run")
        os.mkdir(d)
        for n in ("regime-absolute_frac_us.json", "regime-unknown_origin.json"):
            shutil.copy(os.path.join(FIX, n), d)
        r = self.ingest_ok(d, extra=("--threads", "1"))
        self.assertIn("profan: note: %s has timestamps of unknown origin and %s"
                      " absolute_frac_us: times across these traces do not line up\n"
                      % (os.path.join(d, "regime-unknown_origin.json"),
                         os.path.join(d, "regime-absolute_frac_us.json")), r.err)
        got = {x["rank"]: x["time_regime"] for x in self.sql(
            "SELECT rank, time_regime FROM run_file")}
        self.assertEqual(got, {"3": "absolute_frac_us", "4": "unknown_origin"})
        for rank, n in ((3, "regime-absolute_frac_us.json"), (4, "regime-unknown_origin.json")):
            self.assertEqual(self.stored_rows(rank), expected_rows(gen.CASES[n][0]), n)
        # --quiet: no note
        r = common.run("ingest", "--quiet", d, db=os.path.join(self.tmp.name, "q.db"))
        self.assertEqual((r.rc, r.err), (0, ""))

    def test_a_file_that_is_not_a_trace_does_not_count(self):
        # a JSON file without traceEvents beside the unknown-origin trace
        # is skipped: no note (and no refusal: one trace in the run)
        d = os.path.join(self.tmp.name, "run")
        os.mkdir(d)
        shutil.copy(os.path.join(FIX, "regime-unknown_origin.json"), d)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({"lr": 0.1, "traceEvents_like": []}, f)
        r = self.ingest_ok(d)
        self.assertNotIn("unknown origin", r.err)
        self.assertEqual(self.sql("SELECT time_regime FROM run_file WHERE kind = 'trace'"),
                         [{"time_regime": "unknown_origin"}])

    def test_two_unknown_origin_traces_are_not_noted(self):
        d = os.path.join(self.tmp.name, "run")
        os.mkdir(d)
        text = gen.CASES["regime-unknown_origin.json"][0]
        for rank in (1, 2):
            with open(os.path.join(d, "t%d.json" % rank), "w") as f:
                f.write(text.replace('"rank":4', '"rank":%d' % rank))
        r = self.ingest_ok(d)
        self.assertNotIn("unknown origin", r.err)


# file name -> rank it gives (None: no rank in the name)
NAMES = {
    "rank3.json": 3, "rank_12.json": 12, "rank-4.json": 4,
    "host_rank5_step.json": 5, "host-worker6-x.json": 6, "host.rank7.json": 7,
    "worker_8.pt.trace.json": 8, "worker9": 9, "rank2x_worker10.json": 10,
    "prank2.json": None, "rankx.json": None, "rank2x.json": None,
    "rankrank3.json": None, "trace.json": None,
}


class RankInference(ProfanTest):

    def rankless(self, d, name, shift=0):
        text = gen.trace(gen.EPOCH_US + shift)
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
        return text

    def test_rank_from_each_file_name_alone(self):
        for name, rank in NAMES.items():
            with self.subTest(name=name):
                self.tearDown()
                self.setUp()
                self.rankless(self.tmp.name, name)
                self.ingest_ok(os.path.join(self.tmp.name, name))
                f = self.sql("SELECT rank, rank_source FROM run_file")
                want = (str(rank), "file name") if rank is not None else ("0", "default")
                self.assertEqual((f[0]["rank"], f[0]["rank_source"]), want)
                self.assertEqual(self.sql("SELECT DISTINCT rank FROM kernel"),
                                 [{"rank": want[0]}])

    def test_ranks_from_file_names_in_one_run(self):
        # every file with a rank in its name, in one directory: one rank
        # each, their rows apart (distributedInfo would win over the name)
        d = os.path.join(self.tmp.name, "run")
        os.mkdir(d)
        named = {n: r for n, r in NAMES.items() if r is not None}
        texts = {n: self.rankless(d, n, shift=r) for n, r in named.items()}
        with open(os.path.join(d, "rank1.json"), "w") as f:
            f.write(gen.trace(gen.EPOCH_US, rank=11))    # distributedInfo wins
        self.ingest_ok(d)
        got = {os.path.basename(x["path"]): (int(x["rank"]), x["rank_source"])
               for x in self.sql("SELECT path, rank, rank_source FROM run_file")}
        want = {n: (r, "file name") for n, r in named.items()}
        want["rank1.json"] = (11, "distributedInfo")
        self.assertEqual(got, want)
        for n, r in named.items():
            rows = sorted((int(x["ts"]), int(x["dur"])) for x in self.sql(
                "SELECT ts, dur FROM kernel WHERE rank = %d" % r))
            self.assertEqual(rows, expected_rows(texts[n])["kernel"], n)
        self.assertEqual(len(self.query("steps")), len(want))

    def test_two_rankless_traces_in_one_run_are_refused(self):
        d = os.path.join(self.tmp.name, "run")
        os.mkdir(d)
        self.rankless(d, "a.json")
        self.rankless(d, "b.json", shift=50)
        self.ingest_ok(os.path.join(common.ROOT, "fixtures", "regimes",
                                    "regime-absolute_us.json"))
        before = self.db_bytes()
        r = self.profan("ingest", d)
        self.assertEqual(r.rc, 6, r.err)
        self.assertIn(r.err, ["profan: %s: no rank (no distributedInfo, no rank in the"
                              " file name) in a run of 2 traces: name the file rank<N>..."
                              " or ingest it as a run of its own\n"
                              % os.path.join(d, n) for n in ("a.json", "b.json")])
        self.assertEqual(self.db_bytes(), before)
        # one of them beside a trace that has its rank: still ambiguous
        os.remove(os.path.join(d, "b.json"))
        with open(os.path.join(d, "rank1.json"), "w") as f:
            # other content than a.json (a copy would be loaded once)
            f.write(gen.trace(gen.EPOCH_US + 25))
        r = self.profan("ingest", d)
        self.assertEqual(r.rc, 6, r.err)
        self.assertEqual(r.err, "profan: %s: no rank (no distributedInfo, no rank in"
                         " the file name) in a run of 2 traces: name the file"
                         " rank<N>... or ingest it as a run of its own\n"
                         % os.path.join(d, "a.json"))
        self.assertEqual(self.db_bytes(), before)
        # named by rank, the two go in as ranks 0 and 1
        os.rename(os.path.join(d, "a.json"), os.path.join(d, "rank0.json"))
        self.ingest_ok(d)
        self.assertEqual(self.sql("SELECT rank, rank_source FROM run_file f JOIN run r"
                                  " ON r.id = f.run_id WHERE r.id = 2 ORDER BY rank"),
                         [{"rank": "0", "rank_source": "file name"},
                          {"rank": "1", "rank_source": "file name"}])
