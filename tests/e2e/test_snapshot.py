"""test_snapshot.py — memory snapshot ingest and the memory queries.

Numbers are checked against snapshot_reference.py, which decodes the
pickles with its own restricted stack machine (never pickle.load) and
recomputes the totals and the trace replay from docs/formats.md §2.  The real
fixtures' reference numbers are committed in expected/snapshot-*.json (a
test checks they are still what the script computes); crafted inputs come
from fixtures/pickle/gen.py, written into a temporary directory.
"""
import json
import os
import pickle
import subprocess
import sys
import tempfile
import unittest

from common import ProfanTest, shared, local, ROOT

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import snapshot_reference as ref  # noqa: E402

GEN = local("pickle", "gen.py")


def expected(name):
    with open(os.path.join(HERE, "expected", "snapshot-%s.json" % name)) as f:
        return json.load(f)


def generate(tmp):
    out = os.path.join(tmp, "gen")
    subprocess.run([sys.executable, GEN, out], check=True)
    return out


def ints(row, *keys):
    return [None if row[k] == "" else int(float(row[k])) for k in keys]


class SnapshotNumbers(ProfanTest):
    """Every fixture snapshot against the reference numbers."""

    def check(self, path, exp):
        self.ingest_ok(path)
        snaps = self.sql("SELECT * FROM snapshot ORDER BY device")
        self.assertEqual([s["device"] for s in snaps], sorted(exp, key=int))
        for s in snaps:
            e = exp[s["device"]]
            with self.subTest(device=s["device"]):
                for col, key in (("n_segments", "segments"),
                                 ("n_blocks", "blocks"),
                                 ("reserved_bytes", "reserved_bytes"),
                                 ("allocated_bytes", "allocated_bytes"),
                                 ("active_bytes", "active_bytes"),
                                 ("inactive_bytes", "inactive_bytes"),
                                 ("n_events", "n_events"),
                                 ("max_reserved_bytes", "max_reserved_bytes"),
                                 ("peak_allocated_bytes",
                                  "peak_allocated_bytes")):
                    self.assertEqual(int(s[col]), e[key], col)
                peak_idx = None if s["peak_event_idx"] == "" \
                    else int(s["peak_event_idx"])
                self.assertEqual(peak_idx, e["peak_event_idx"])
                if s["trace_live_bytes"] != "":
                    self.assertEqual(int(s["trace_live_bytes"]),
                                     e["trace_live_bytes"])
        n_ev = sum(e["n_events"] for e in exp.values())
        self.assertEqual(int(self.sql("SELECT count(*) AS n FROM alloc_event")
                             [0]["n"]), n_ev)
        # memory-summary: one total row per device first (a missing
        # section must fail, not make the loops below empty)
        tot = [r for r in self.query("memory-summary") if r["section"] == "total"]
        self.assertEqual(sorted(r["device"] for r in tot), sorted(exp, key=int))
        for r in tot:
            e = exp[r["device"]]
            self.assertEqual(ints(r, "segments", "blocks", "reserved_bytes",
                                  "allocated_bytes", "active_bytes",
                                  "inactive_bytes"),
                             [e["segments"], e["blocks"], e["reserved_bytes"],
                              e["allocated_bytes"], e["active_bytes"],
                              e["inactive_bytes"]])
            self.assertAlmostEqual(float(r["fragmentation_pct"]),
                                   e["fragmentation_pct"], places=2)
        # fragmentation
        frag = self.query("fragmentation")
        for d, e in exp.items():
            mine = [r for r in frag if r["device"] == d]
            # every size bucket, one "all" pinned row, one recommendation
            self.assertEqual(sorted(r["item"] for r in mine if r["section"] == "bucket"),
                             sorted(e["buckets"]), d)
            self.assertEqual(len([r for r in mine if r["section"] == "pinned"
                                  and r["item"] == "all"]), 1, d)
            self.assertEqual(len([r for r in mine if r["section"] == "recommendation"]),
                             1, d)
            if e["largest_gap_bytes"] > 0:
                self.assertTrue([r for r in mine if r["section"] == "gap"], d)
        for r in frag:
            e = exp[r["device"]]
            if r["section"] == "bucket":
                self.assertEqual(ints(r, "count", "total_bytes"),
                                 e["buckets"][r["item"]], r["item"])
            elif r["section"] == "pinned" and r["item"] == "all":
                self.assertEqual(ints(r, "count", "total_bytes"),
                                 [e["pinned_blocks"], e["pinned_bytes"]])
            elif r["section"] == "recommendation":
                self.assertEqual(r["detail"].startswith("recommended"),
                                 e["expandable_recommended"])
        gaps = [r for r in frag if r["section"] == "gap"]
        for d, e in exp.items():
            g = [int(r["total_bytes"]) for r in gaps if r["device"] == d]
            self.assertEqual(max(g or [0]), e["largest_gap_bytes"])
        # memory-peak: the peak row, and what was live adds up to it
        peak = self.query("memory-peak")
        for d, e in exp.items():
            p = [r for r in peak if r["device"] == d and r["section"] == "peak"]
            self.assertEqual(len(p), 1)
            self.assertEqual(ints(p[0], "live_bytes", "count",
                                  "baseline_bytes"),
                             [e["peak_allocated_bytes"], e["peak_live_count"],
                              e["baseline_bytes"]])
            for sec in ("category", "frame"):
                rows = [r for r in peak if r["device"] == d
                        and r["section"] == sec]
                if e["peak_live_bytes"] > 0:
                    self.assertTrue(rows, (d, sec))
                if sec == "category":
                    self.assertEqual(sum(int(r["live_bytes"]) for r in rows),
                                     e["peak_live_bytes"])
        # alloc-churn: sizes >= 1 MiB by count x size
        churn = self.query("alloc-churn", "--param", "limit=10")
        for d, e in exp.items():
            got = [ints(r, "size_bytes", "count", "total_bytes")
                   for r in churn if r["device"] == d]
            self.assertEqual(got, e["churn_top"])
        # alloc-sources: every active byte is attributed once per section
        src = self.query("alloc-sources", "--param", "limit=1000000")
        for d, e in exp.items():
            for sec in ("file", "line"):
                if e["active_bytes"] > 0:
                    self.assertTrue([r for r in src if r["device"] == d
                                     and r["section"] == sec], (d, sec))
                self.assertEqual(sum(int(r["active_bytes"]) for r in src
                                     if r["device"] == d
                                     and r["section"] == sec),
                                 e["active_bytes"])

    def test_cs336_fullstep(self):
        self.check(shared("snapshots", "cs336-fullstep-2025.pickle"),
                   expected("cs336-fullstep-2025.pickle"))

    def test_tomi_small(self):
        self.check(shared("snapshots", "tomi-small.pickle"),
                   expected("tomi-small.pickle"))

    def test_torch20_history(self):
        p = shared("snapshots", "llm-inference-torch20-history.pickle")
        self.check(p, expected("llm-inference-torch20-history.pickle"))
        fmt = self.sql("SELECT DISTINCT block_format FROM snapshot")
        self.assertEqual(fmt, [{"block_format": "history"}])
        # addresses summed from the segment base tile every segment
        bad = self.sql("SELECT count(*) AS n FROM block b JOIN segment s"
                       " ON s.id = b.segment_id WHERE b.idx = 0"
                       " AND b.address <> s.address")
        self.assertEqual(bad[0]["n"], "0")

    def test_segment_list(self):
        self.check(shared("snapshots", "segment-list-only.pkl"),
                   expected("segment-list-only.pkl"))
        self.assertEqual(self.sql("SELECT DISTINCT layout FROM snapshot"),
                         [{"layout": "segment_list"}])

    def test_empty(self):
        self.check(shared("snapshots", "empty-snapshot.pickle"),
                   expected("empty-snapshot.pickle"))

    def test_expected_files_are_current(self):
        for name in ref.SNAPSHOTS:
            path = shared("snapshots", name)
            self.assertEqual(ref.reference(path), expected(name), name)

    def test_not_a_snapshot(self):
        before = None
        self.ingest_ok(shared("snapshots", "tomi-small.pickle"))
        before = self.db_bytes()
        r = self.profan("ingest", shared("snapshots", "not-a-snapshot.pickle"))
        self.assertEqual(r.rc, 6)
        self.assertIn("not a CUDA memory snapshot", r.err)
        self.assertIn("a dict with 8 keys", r.err)
        self.assertEqual(self.db_bytes(), before)

    def test_run_file_row(self):
        self.ingest_ok(shared("snapshots", "tomi-small.pickle"))
        rf = self.sql("SELECT kind, n_records, warnings, rank FROM run_file")
        self.assertEqual(rf, [{"kind": "snapshot", "n_records": str(2 + 13 + 713),
                               "warnings": "0", "rank": ""}])


class SnapshotCrafted(ProfanTest):
    """Synthetic snapshots: ring buffer, pending free, segment map/unmap,
    oom, two devices."""

    def setUp(self):
        super().setUp()
        self.gen = generate(self.tmp.name)

    def test_ring_buffer(self):
        for name in ("ring-buffer-p2.pickle", "ring-buffer.pickle"):
            with self.subTest(name=name):
                self.db = os.path.join(self.tmp.name, name + ".db")
                path = os.path.join(self.gen, name)
                SnapshotNumbers.check(self, path, ref.reference(path))
        run = self.sql("SELECT max(run_id) AS r FROM snapshot")[0]["r"]
        s = self.sql("SELECT n_orphan_frees, peak_event_idx FROM snapshot"
                     " WHERE device = 0 AND run_id = %s" % run)[0]
        self.assertEqual(s["n_orphan_frees"], "2")
        # the pending-free block knows its alloc and free entries
        b = self.sql("SELECT alloc_idx, free_idx FROM block"
                     " WHERE state = 'active_pending_free' AND run_id = %s"
                     % run)
        self.assertEqual(b, [{"alloc_idx": "5", "free_idx": "16"}])
        # reserved follows segment_map/alloc/free/unmap and ends at the total
        last = self.sql("SELECT reserved_after FROM alloc_event e JOIN"
                        " snapshot s ON s.id = e.snapshot_id WHERE s.device = 0"
                        " AND s.run_id = %s ORDER BY idx DESC LIMIT 1" % run)
        self.assertEqual(last[0]["reserved_after"], str(28 << 20))
        # stacks are deduplicated although every entry has its own list
        n = self.sql("SELECT count(*) AS n FROM stack WHERE run_id = %s" % run)
        self.assertEqual(n[0]["n"], "4")
        cats = self.sql("SELECT category FROM stack WHERE run_id = %s"
                        " ORDER BY category" % run)
        self.assertEqual([c["category"] for c in cats],
                         ["LayerNorm", "gradient-checkpoint recompute",
                          "optimizer", "other"])
        user = self.sql("SELECT DISTINCT f.filename FROM stack st JOIN frame f"
                        " ON f.id = st.user_frame_id WHERE st.run_id = %s"
                        " ORDER BY 1" % run)
        self.assertEqual([u["filename"] for u in user],
                         ["/usr/lib/python3/site-packages/torch/nn/functional.py",
                          "/usr/lib/python3/site-packages/torch/optim/adamw.py",
                          "/work/model/mlp.py"])

    def test_oom(self):
        self.ingest_ok(os.path.join(self.gen, "ring-buffer.pickle"))
        rows = self.query("oom")
        o = [r for r in rows if r["section"] == "oom"]
        self.assertEqual(len(o), 1)
        self.assertEqual(ints(o[0], "event_idx", "size_bytes",
                              "device_free_bytes"), [9, 64 << 20, 3 << 20])
        before = [r for r in rows if r["section"] == "before"]
        self.assertEqual([int(r["event_idx"]) for r in before],
                         list(range(0, 9)))
        live = [r for r in rows if r["section"] == "live"]
        self.assertEqual(sum(int(r["size_bytes"]) for r in live),
                         2 * 1024 * 1024 * 2 + 500 * 1024 + 8 * 1024 * 1024)

    def test_timeline_and_leak_check(self):
        self.ingest_ok(os.path.join(self.gen, "ring-buffer.pickle"))
        rows = self.query("memory-timeline", "--param", "points=1000")
        pts = [r for r in rows if r["section"] == "point"
               and r["device"] == "0"]
        self.assertEqual(len(pts), 18)
        steps = [r for r in rows if r["section"] == "step"]
        self.assertEqual([r["step"] for r in steps], ["1", "2", "3"])
        leak = [r for r in rows if r["section"] == "leak_check"]
        self.assertEqual(len(leak), 1)
        self.assertTrue(leak[0]["detail"].startswith("LEAK SUSPECTED"),
                        leak[0])

    def test_fragmentation_capacity(self):
        self.ingest_ok(os.path.join(self.gen, "ring-buffer.pickle"))
        rows = self.query("fragmentation", "--param", "gpu_gb=1")
        cap = {r["item"]: r for r in rows if r["section"] == "capacity"
               and r["device"] == "0"}
        self.assertEqual(int(cap["device memory"]["total_bytes"]), 1 << 30)
        self.assertEqual(int(cap["headroom"]["total_bytes"]),
                         (1 << 30) - (28 << 20))

    def test_every_memory_query_runs_on_every_layout(self):
        for name in ("ring-buffer.pickle", "small.pickle"):
            self.ingest_ok(os.path.join(self.gen, name))
            for q in ("memory-summary", "fragmentation", "memory-peak",
                      "alloc-churn", "alloc-sources", "memory-timeline",
                      "oom"):
                self.query(q)

    def test_run_delete_removes_memory_rows(self):
        self.ingest_ok(os.path.join(self.gen, "ring-buffer.pickle"))
        r = self.profan("rm", "latest")
        self.assertEqual(r.rc, 0, r.err)
        for t in ("snapshot", "segment", "block", "alloc_event", "frame",
                  "stack", "stack_frame", "memory_annotation"):
            self.assertEqual(self.sql("SELECT count(*) AS n FROM " + t),
                             [{"n": "0"}], t)


class SnapshotHostile(ProfanTest):
    """Crafted malicious pickles are refused: exit 1, one line naming the
    file and the byte offset, the database unchanged."""

    def setUp(self):
        super().setUp()
        self.gen = generate(self.tmp.name)
        self.ingest_ok(os.path.join(self.gen, "small.pickle"))
        self.before = self.db_bytes()

    def refused(self, path):
        r = self.profan("ingest", path)
        self.assertEqual(r.rc, 6, (path, r.err))
        lines = [l for l in r.err.splitlines() if l.strip()]
        self.assertEqual(len(lines), 1, r.err)
        self.assertRegex(lines[0], r"^profan: %s:\d+: " % path.replace(
            "/", r"\/").replace(".", r"\."))
        self.assertEqual(self.db_bytes(), self.before, path)
        return lines[0]

    def test_code_opcodes(self):
        hdir = os.path.join(self.gen, "hostile")
        want = {"global-os-system": "GLOBAL", "stack-global": "STACK_GLOBAL",
                "reduce-chain": "REDUCE", "build": "BUILD", "inst": "INST",
                "obj": "OBJ", "newobj": "NEWOBJ", "ext1": "EXT1",
                "persid": "PERSID", "binpersid": "BINPERSID"}
        for stem, op in want.items():
            with self.subTest(stem=stem):
                line = self.refused(os.path.join(hdir, stem + ".pickle"))
                self.assertIn("opcode %s " % op, line)

    def test_lengths_nesting_memo(self):
        hdir = os.path.join(self.gen, "hostile")
        for name in sorted(os.listdir(hdir)):
            if name.startswith(("huge-", "deep-", "memo-")):
                with self.subTest(name=name):
                    self.refused(os.path.join(hdir, name))

    def test_truncation_at_every_offset(self):
        with open(os.path.join(self.gen, "small.pickle"), "rb") as f:
            data = f.read()
        path = os.path.join(self.tmp.name, "cut.pickle")
        for n in range(1, len(data)):
            with open(path, "wb") as f:
                f.write(data[:n])
            r = self.profan("ingest", path)
            self.assertEqual(r.rc, 6, (n, r.err))
            self.assertEqual(len(r.err.strip().splitlines()), 1, r.err)
            self.assertIn(path + ":", r.err)
        self.assertEqual(self.db_bytes(), self.before)


def long_trace(n_triples, shared_lists, base, t0):
    """A trace of n_triples alloc / free_requested / free_completed, in
    pickler batches of 1000 entries.  The free entries carry the alloc's
    frame list object (as torch writes them); with shared_lists every
    alloc takes one of 50 lists made up front, so later batches fetch
    lists (and frame dicts) made in earlier ones from the memo."""
    frames = [{"name": "f%d" % k, "filename": "/work/m%d.py" % (k % 5),
               "line": k} for k in range(40)]
    lists = [[frames[k % 40], frames[(k * 7 + 3) % 40]] for k in range(50)]
    trace, names = [], []
    for i in range(n_triples):
        fl = lists[i % 50] if shared_lists \
            else [frames[i % 40], frames[(i * 3) % 40], frames[(i * 11) % 40]]
        addr = base + (i % 500) * 4096
        size = 512 * (1 + i % 7)
        for k, action in enumerate(("alloc", "free_requested",
                                    "free_completed")):
            trace.append({"action": action, "addr": addr, "size": size,
                          "stream": 0, "time_us": t0 + 3 * i + k,
                          "frames": fl})
            names.append(",".join(f["name"] for f in fl))
    return trace, names


def long_snapshot(n_triples, shared_lists=False, devices=1):
    """A snapshot whose device traces are long enough to be streamed in
    several batches; returns (snapshot, {device: [frame names per entry]})."""
    segs, traces, names = [], [], {}
    for d in range(devices):
        base = (1 << 40) * (d + 1)
        segs.append({"device": d, "address": base, "total_size": 500 * 4096,
                     "allocated_size": 0, "active_size": 0,
                     "requested_size": 0, "stream": 0,
                     "segment_type": "large", "segment_pool_id": (0, 0),
                     "is_expandable": False, "frames": [],
                     "blocks": [{"address": base, "size": 500 * 4096,
                                 "requested_size": 0, "state": "inactive",
                                 "frames": []}]})
        t, nm = long_trace(n_triples + 100 * d, shared_lists, base,
                           1700000000000000)
        traces.append(t)
        names[d] = nm
    return {"segments": segs, "device_traces": traces}, names


class SnapshotStreaming(ProfanTest):
    """Long traces are streamed into the loader while the pickle is
    decoded; files laid out otherwise are decoded whole.  Both must give
    the reference numbers and every entry its own stack."""

    def write(self, name, obj):
        path = os.path.join(self.tmp.name, name)
        with open(path, "wb") as f:
            pickle.dump(obj, f, protocol=4)
        return path

    def check_stacks(self, names):
        for d, want in names.items():
            got = self.sql(
                "SELECT e.idx AS idx, (SELECT group_concat(name, ',') FROM"
                " (SELECT f.name FROM stack_frame sf JOIN frame f"
                " ON f.id = sf.frame_id WHERE sf.stack_id = e.stack_id"
                " ORDER BY sf.pos)) AS names FROM alloc_event e JOIN snapshot"
                " s ON s.id = e.snapshot_id WHERE s.device = %d"
                " ORDER BY e.idx" % d)
            self.assertEqual([g["names"] for g in got], want, d)

    def test_unshared_and_shared_frame_lists(self):
        for shared_lists in (False, True):
            with self.subTest(shared_lists=shared_lists):
                self.db = os.path.join(self.tmp.name, "%s.db" % shared_lists)
                snap, names = long_snapshot(1200, shared_lists, devices=2)
                path = self.write("long-%s.pickle" % shared_lists, snap)
                SnapshotNumbers.check(self, path, ref.reference(path))
                self.check_stacks(names)
                n = self.sql("SELECT count(*) AS n FROM frame")[0]["n"]
                self.assertEqual(n, "40")
                n = self.sql("SELECT count(*) AS n FROM stack")[0]["n"]
                distinct = {x for nm in names.values() for x in nm}
                self.assertEqual(int(n), len(distinct))

    def test_entry_object_twice_is_decoded_whole(self):
        # the same entry dict twice in a trace: the pickle fetches the
        # second from the memo after the first was handed over
        snap, names = long_snapshot(1200)
        tr = snap["device_traces"][0]
        tr.append(tr[4])
        names[0].append(names[0][4])
        path = self.write("twice.pickle", snap)
        SnapshotNumbers.check(self, path, ref.reference(path))
        self.check_stacks(names)
        # its alloc_idx is that of entry 3's alloc
        row = self.sql("SELECT action, alloc_idx FROM alloc_event"
                       " WHERE idx = %d" % (len(tr) - 1))
        self.assertEqual(row, [{"action": "free_requested",
                                "alloc_idx": ""}])


if __name__ == "__main__":
    unittest.main()
