"""test_comm.py — end-to-end tests of communication ingest (issue 4).

NCCL logs, collectives in traces, multi-rank skew and flight-recorder
dumps.  Every expected number is computed here from the input files with
Python's own parsers (re, json, gzip, pickle), never from profan's
database.
"""
import glob
import gzip
import json
import os
import pickle
import re
import shutil

from common import ProfanTest, shared, local, load_json

FR = ("clean", "missing_rank", "size_mismatch", "stuck_started")
ELEM = {"float": 4, "Float": 4, "c10::BFloat16": 2, "BFloat16": 2,
        "c10::Half": 2, "Half": 2, "double": 8, "long int": 8, "int": 4}


def bucket(b):
    for lim, name in ((1024, "<1KiB"), (65536, "1KiB-64KiB"),
                      (1048576, "64KiB-1MiB"), (16777216, "1MiB-16MiB"),
                      (268435456, "16MiB-256MiB")):
        if b < lim:
            return name
    return ">=256MiB"


def is_nccl_kernel(name):
    return name.startswith("ncclKernel_") or name.startswith("ncclDevKernel_")


class CommNcclLogTest(ProfanTest):

    def test_comm_nccl_tests_log(self):
        path = shared("nccl", "nccl-tests-2.27.7-2rank.log")
        text = open(path, encoding="utf-8", errors="replace").read()
        recs = re.findall(r"AllReduce: opCount [0-9a-f]+ sendbuff \S+ "
                          r"recvbuff \S+ count (\d+) datatype (\d+)", text)
        glued = [l for l in text.splitlines()
                 if "opCount" in l and not l.startswith("mew0:")]
        self.assertEqual(len(recs), 990)            # 968 + 22 glued
        self.assertEqual(len(glued), 22)
        self.ingest_ok(path)
        row = self.sql("SELECT count(*) AS n, sum(bytes) AS b,"
                       " sum(glued) AS g, count(rank) AS r FROM nccl_coll")[0]
        self.assertEqual(int(row["n"]), 990)
        self.assertEqual(int(row["g"]), 22)
        self.assertEqual(int(row["r"]), 990)        # every comm resolved
        self.assertEqual(int(row["b"]), sum(int(c) * 4 for c, d in recs))
        # nccl-summary: one communicator of two ranks
        s = self.query("nccl-summary")
        self.assertEqual(len(s), 1)
        commid = re.search(r"commId (0x[0-9a-f]+) - Init COMPLETE",
                           text).group(1)
        self.assertEqual(s[0]["comm_id"], commid)
        self.assertEqual(s[0]["nranks"], "2")
        self.assertEqual(s[0]["ranks_seen"], "2")
        self.assertEqual(s[0]["version"], "2.27.7+cuda13.0")
        self.assertEqual(s[0]["transports"], "P2P")
        self.assertEqual(int(s[0]["links"]), len(re.findall(r" via P2P", text)))
        self.assertEqual(s[0]["coll_channels"], "24")
        self.assertAlmostEqual(float(s[0]["init_s"]), 0.67)
        self.assertEqual(int(s[0]["collectives"]), 990)
        self.assertEqual(s[0]["end_state"], "Destroy")
        # nccl-collectives: calls and bytes per size
        c = self.query("nccl-collectives", "--param", "limit=1000")
        by_count = {}
        for cnt, _ in recs:
            by_count[int(cnt)] = by_count.get(int(cnt), 0) + 1
        self.assertEqual(len(c), len(by_count))
        for r in c:
            self.assertEqual(r["op"], "AllReduce")
            self.assertEqual(r["dtype"], "float32")
            self.assertEqual(int(r["calls"]), by_count[int(r["count"])])
            self.assertEqual(int(r["total_bytes"]),
                             by_count[int(r["count"])] * int(r["count"]) * 4)
        # algorithm decisions and the two "dlvsym failed" probe warnings
        self.assertEqual(int(self.sql("SELECT count(*) AS n FROM nccl_algo")
                             [0]["n"]), len(re.findall(r"Bytes -> Algo", text)))
        w = self.query("nccl-warnings")
        self.assertEqual(len(w), 2)
        self.assertTrue(all(x["level"] == "INFO" for x in w))

    def test_comm_nccl_interleaved_log(self):
        path = shared("nccl", "ddp-2rank-interleaved.log")
        r = self.ingest_ok(path)
        self.assertIn("skipped or repaired", r.err)
        f = self.sql("SELECT kind, warnings FROM run_file")[0]
        self.assertEqual(f["kind"], "nccl_log")
        self.assertEqual(f["warnings"], "4")        # 4 cut segments on 2 lines
        s = self.query("nccl-summary")
        self.assertEqual(len(s), 1)
        self.assertEqual(s[0]["comm_id"], "0x245d75cdaf12704b")
        self.assertEqual(s[0]["ranks_seen"], "2")
        self.assertEqual(s[0]["transports"], "SHM")

    def test_comm_nccl_strict_refuses_cut_lines(self):
        path = shared("nccl", "ddp-2rank-interleaved.log")
        self.ingest_ok(shared("nccl", "nccl-tests-2.27.7-2rank.log"))
        before = self.db_bytes()
        r = self.profan("ingest", "--strict", path)
        self.assertEqual(r.rc, 6)
        self.assertEqual(len(r.err.strip().splitlines()), 1, r.err)
        self.assertIn("ddp-2rank-interleaved.log:8", r.err)
        self.assertEqual(self.db_bytes(), before)


class CommTraceTest(ProfanTest):

    def test_comm_tracelens_kernel_args(self):
        path = shared("traces", "tracelens-b200-vllm-rank0.json.gz")
        ev = load_json(path)["traceEvents"]
        ks = [e for e in ev if e.get("cat") == "kernel"
              and is_nccl_kernel(e["name"])]
        self.assertEqual(len(ks), 1)
        a = ks[0]["args"]
        nbytes = max(a["In msg nelems"], a["Out msg nelems"]) * 2  # BFloat16
        n = a["Group size"]
        dur_ns = round(ks[0]["dur"] * 1000)
        self.ingest_ok(path)
        rows = self.query("collectives")
        # the multimem all-reduce kernels are collectives too (comm_pattern)
        mm = [e for e in ev if e.get("cat") == "kernel"
              and "multimem_all_reduce_kernel" in e["name"]]
        self.assertEqual(sum(int(x["count"]) for x in rows
                             if x["op"] == "all_reduce"), len(mm))
        rows = [x for x in rows if x["op"] != "all_reduce"]
        self.assertEqual(len(rows), 1)
        r = rows[0]
        self.assertEqual(r["op"], "all_gather")
        self.assertEqual(r["pg_name"], a["Process Group Name"])
        self.assertEqual(int(r["group_size"]), n)
        self.assertEqual(int(r["total_bytes"]), nbytes)
        self.assertEqual(r["args_from"], "kernel")
        self.assertAlmostEqual(float(r["algbw_gbps"]), round(nbytes / dur_ns, 3))
        self.assertAlmostEqual(float(r["busbw_gbps"]),
                               round(nbytes * (n - 1) / n / dur_ns, 3))
        c = self.sql("SELECT dtype, pg_ranks, algo, proto, op_row IS NOT NULL"
                     " AS has_op FROM collective WHERE op = 'all_gather'")[0]
        self.assertEqual(c["dtype"], "bfloat16")
        self.assertEqual(c["pg_ranks"], a["Process Group Ranks"])
        self.assertEqual((c["algo"], c["proto"]), ("RING", "LL"))
        self.assertEqual(c["has_op"], "1")           # record_param_comms found
        ov = self.query("comm-overlap")
        self.assertEqual(ov[0]["comm_kernels"], str(1 + len(mm)))

    def dlrm_expected(self):
        """Per rank: NCCL kernels with op and bytes from the enclosing
        nccl:* annotation (launch inside it on the same thread)."""
        out = {}
        for p in sorted(glob.glob(os.path.join(
                shared("runs", "dlrm-8rank"), "*.json.gz"))):
            d = load_json(p)
            rank = d["distributedInfo"]["rank"]
            ev = d["traceEvents"]
            rt = {e["args"]["correlation"]: e for e in ev
                  if e.get("cat") == "cuda_runtime"
                  and "correlation" in e.get("args", {})}
            ann = [e for e in ev if e.get("cat") == "user_annotation"
                   and e["name"].startswith("nccl:")]
            ks = []
            for k in sorted((e for e in ev if e.get("cat") == "kernel"
                             and is_nccl_kernel(e["name"])),
                            key=lambda e: e["ts"]):
                r = rt[k["args"]["correlation"]]
                a = [x for x in ann if x["tid"] == r["tid"]
                     and x["ts"] <= r["ts"] <= x["ts"] + x["dur"]][-1]
                dims = a["args"]["Input Dims"]
                nel = sum(eval("*".join(map(str, t))) for t in dims if t)
                op = a["name"][5:]
                ks.append((op, nel * ELEM[a["args"]["Input type"][0]],
                           round(k["dur"] * 1000), round(k["ts"] * 1000)))
            out[rank] = ks
        return out

    def test_comm_dlrm_collectives_and_skew(self):
        exp = self.dlrm_expected()
        self.assertEqual(len(exp), 8)
        self.ingest_ok(shared("runs", "dlrm-8rank"))
        rows = self.query("collectives", "--param", "limit=1000")
        got = {(int(r["rank"]), r["op"], r["size_bucket"]): r for r in rows}
        want = {}
        for rank, ks in exp.items():
            for op, b, dur, _ in ks:
                w = want.setdefault((rank, op, bucket(b)), [0, 0, 0])
                w[0] += 1
                w[1] += b
                w[2] += dur
        self.assertEqual(set(got), set(want))
        for key, (n, b, dur) in want.items():
            r = got[key]
            self.assertEqual(int(r["count"]), n, key)
            self.assertEqual(int(r["total_bytes"]), b, key)
            self.assertEqual(int(r["group_size"]), 8)
            self.assertAlmostEqual(float(r["algbw_gbps"]), round(b / dur, 3),
                                   msg=key)
            f = 2 * 7 / 8 if key[1] == "all_reduce" else 7 / 8
            self.assertAlmostEqual(float(r["busbw_gbps"]),
                                   round(b * f / dur, 3), msg=key)
        # late arrivals: the i-th collective of every rank is one collective
        late = {r: 0 for r in exp}
        nseq = len(exp[0])
        for i in range(nseq):
            starts = {r: ks[i][3] for r, ks in exp.items()}
            if max(starts.values()) > min(starts.values()):
                t = max(starts.values())
                late[min(r for r in starts if starts[r] == t)] += 1
        sk = self.query("rank-skew")
        self.assertEqual(len(sk), 8)
        for r in sk:
            self.assertEqual(int(r["late_collectives"]), late[int(r["rank"])])
            self.assertEqual(r["steps"], "1")
        cs = self.query("collective-skew", "--param", "limit=1")
        self.assertEqual(int(cs[0]["late_rank"]),
                         max(late, key=lambda r: late[r]))
        # overlap: comm + comp - overlap = wall, efficiency in [0, 1]
        for r in self.query("comm-overlap"):
            self.assertEqual(r["comm_kernels"], str(len(exp[int(r["rank"])])))
            self.assertAlmostEqual(float(r["comm_ms"]) + float(r["comp_ms"])
                                   - float(r["overlap_ms"]),
                                   float(r["wall_ms"]), places=2)
            self.assertTrue(0 <= float(r["overlap_efficiency"]) <= 1)
        ab = self.query("alpha-beta")
        self.assertEqual({r["op"] for r in ab}, {"all_reduce", "all_to_all"})
        self.assertEqual(sum(int(r["samples"]) for r in ab),
                         sum(len(k) for k in exp.values()))


class CommFlightRecorderTest(ProfanTest):

    EXPECT = {"clean": None,
              "missing_rank": ("5", "missing_ranks", "3"),
              "size_mismatch": ("3", "size_mismatch", "2"),
              "stuck_started": ("4", "stuck", "2")}

    def check_scenario(self, name, sub):
        d = local("flight_recorder", sub)
        n = 0
        for p in glob.glob(os.path.join(d, "nccl_trace_rank_*")):
            if p.endswith(".json"):
                n += len(json.load(open(p))["entries"])
            else:
                n += len(pickle.load(open(p, "rb"))["entries"])
        self.ingest_ok(d)
        got = self.sql("SELECT count(*) AS n, count(DISTINCT rank) AS r"
                       " FROM fr_entry")[0]
        self.assertEqual(int(got["n"]), n)
        self.assertEqual(got["r"], "4")
        rows = self.query("fr-hang")
        exp = self.EXPECT[name]
        pg0 = [r for r in rows if r["pg_name"] == "0"]
        self.assertEqual(len(pg0), 1)
        if exp is None:
            self.assertTrue(all(r["issue"] == "ok" for r in rows), rows)
            self.assertEqual(len(rows), 2)
        else:
            self.assertEqual((pg0[0]["seq"], pg0[0]["issue"],
                              pg0[0]["culprit_ranks"]), exp)

    def test_comm_fr_pickle_scenarios(self):
        for name in FR:
            with self.subTest(name):
                self.setUp()
                self.check_scenario(name, name)
                self.tearDown()

    def test_comm_fr_json_scenarios(self):
        for name in FR:
            with self.subTest(name):
                self.setUp()
                self.check_scenario(name, name + "_json")
                self.tearDown()

    def test_comm_fr_fields(self):
        d = local("flight_recorder", "stuck_started")
        raw = pickle.load(open(os.path.join(d, "nccl_trace_rank_2"), "rb"))
        e = raw["entries"][3]
        self.ingest_ok(d)
        r = self.sql("SELECT * FROM fr_entry WHERE rank = 2 AND record_id = %d"
                     % e["record_id"])[0]
        self.assertEqual(r["state"], "started")
        self.assertEqual(r["pg_desc"], "default_pg")
        self.assertEqual(int(r["collective_seq_id"]), e["collective_seq_id"])
        self.assertEqual(r["input_sizes"], json.dumps(e["input_sizes"]))
        self.assertEqual(int(r["time_created_ns"]), e["time_created_ns"])
        self.assertEqual(int(r["time_started_ns"]),
                         e["time_discovered_started_ns"])
        self.assertEqual(r["time_completed_ns"], "")
        f = self.sql("SELECT kind, rank, rank_source FROM run_file"
                     " WHERE path LIKE '%rank_2'")[0]
        self.assertEqual((f["kind"], f["rank"], f["rank_source"]),
                         ("flight_recorder", "2", "file name"))

    def test_comm_fr_bad_input(self):
        src = local("flight_recorder", "clean", "nccl_trace_rank_0")
        self.ingest_ok(local("flight_recorder", "clean"))
        before = self.db_bytes()
        bad = os.path.join(self.tmp.name, "nccl_trace_rank_9")
        data = open(src, "rb").read()
        with open(bad, "wb") as f:
            f.write(data[:len(data) // 2])           # cut pickle
        r = self.profan("ingest", bad)
        self.assertEqual(r.rc, 6)
        self.assertEqual(len(r.err.strip().splitlines()), 1, r.err)
        self.assertRegex(r.err, r"nccl_trace_rank_9:\d+: ")
        badj = os.path.join(self.tmp.name, "nccl_trace_rank_8.json")
        with open(badj, "w") as f:
            f.write('{"version": "2.4", "pg_config": {}, "entries": [{"a": }]}')
        r = self.profan("ingest", badj)
        self.assertEqual(r.rc, 6)
        self.assertEqual(len(r.err.strip().splitlines()), 1, r.err)
        self.assertRegex(r.err, r"nccl_trace_rank_8.json:\d+: invalid JSON")
        self.assertEqual(self.db_bytes(), before)
