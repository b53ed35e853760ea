"""test_comm_oracle.py — communication numbers against the JSON (issue #23).

test_comm.py checked "comm + comp - overlap = wall" (derive_trace.c writes
wall_ns exactly that way) and never the alpha-beta fit's values.  Here, on
the 8-rank dlrm run:

  comm-overlap  comm_ms, comp_ms, overlap_ms, exposed_comm_ms and wall_ms per
                rank and device from interval unions of the kernels in the
                JSON (communication kernels: trace_reference.is_comm)
  alpha-beta    a least-squares fit in Python of kernel time against
                message bytes, per collective, on the same (bytes,
                duration) samples: each NCCL kernel's bytes from the
                nccl:* annotation its launch lies in (Input Dims x element
                size), its duration from the JSON
"""
import glob
import math
import os
import tempfile
import unittest

import common
import trace_reference as ref
from common import ProfanTest, shared

ELEM = {"float": 4, "Float": 4, "c10::BFloat16": 2, "BFloat16": 2,
        "c10::Half": 2, "Half": 2, "double": 8, "long int": 8, "int": 4}
MS = 0.0006


def nccl_samples(evs):
    """[(op, bytes, dur_ns)] of the NCCL kernels of one rank."""
    rt = {e["args"]["correlation"]: e for e in evs
          if ref.kind_of(e) == "runtime" and "correlation" in e.get("args", {})}
    ann = [e for e in evs if ref.kind_of(e) == "user_annotation"
           and e["name"].startswith("nccl:")]
    out = []
    for k in evs:
        if ref.kind_of(k) != "kernel" or not k["name"].startswith(("ncclKernel_",
                                                                    "ncclDevKernel_")):
            continue
        r = rt.get(k["args"]["correlation"])
        if r is None:              # launched before the trace window
            continue
        a = [x for x in ann if x["tid"] == r["tid"]
             and x["ts"] <= r["ts"] <= x["ts"] + x["dur"]][-1]
        nel = 0
        for dims in a["args"]["Input Dims"]:
            if dims:
                nel += math.prod(dims)
        out.append((a["name"][5:], nel * ELEM[a["args"]["Input type"][0]],
                    ref.us_to_ns(k["dur"])))
    return out


def fit(samples):
    """Least squares dur = a + b * bytes: (a, b, se_a, se_b, rmse, r2)."""
    n = len(samples)
    mx = sum(x for x, _ in samples) / n
    my = sum(y for _, y in samples) / n
    sxx = sum((x - mx) ** 2 for x, _ in samples)
    sxy = sum((x - mx) * (y - my) for x, y in samples)
    syy = sum((y - my) ** 2 for _, y in samples)
    b = sxy / sxx
    a = my - b * mx
    sse = sum((y - a - b * x) ** 2 for x, y in samples)
    s2 = sse / (n - 2)
    return (a, b, math.sqrt(s2 * (1 / n + mx * mx / sxx)), math.sqrt(s2 / sxx),
            math.sqrt(s2), 1 - sse / syy)


def fit_origin(samples):
    """Least squares dur = b * bytes (no intercept): (b, se_b, rmse, r2),
    r2 against 0 (uncentred), n - 1 degrees of freedom."""
    n = len(samples)
    sxx = sum(x * x for x, _ in samples)
    b = sum(x * y for x, y in samples) / sxx
    sse = sum((y - b * x) ** 2 for x, y in samples)
    s2 = sse / (n - 1)
    return (b, math.sqrt(s2 / sxx), math.sqrt(s2),
            1 - sse / sum(y * y for _, y in samples))


def nnls_alpha(samples):
    """The least squares with alpha >= 0, numerically: for a fixed alpha
    the best slope is sum x (y - alpha) / sum x²; the error is convex in
    alpha, minimised over [0, max dur] by ternary search.  (alpha,
    slope)."""
    sxx = sum(x * x for x, _ in samples)

    def slope(al):
        return sum(x * (y - al) for x, y in samples) / sxx

    def sse(al):
        b = slope(al)
        return sum((y - al - b * x) ** 2 for x, y in samples)
    lo, hi = 0.0, float(max(y for _, y in samples))
    for _ in range(200):
        m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if sse(m1) <= sse(m2):
            hi = m2
        else:
            lo = m1
    al = 0.0 if sse(0.0) <= sse(lo) else lo
    return al, slope(al)


class DlrmComm(ProfanTest):

    @classmethod
    def setUpClass(cls):
        d = shared("runs", "dlrm-8rank")
        cls.tmpc = tempfile.TemporaryDirectory()
        cls.dbc = os.path.join(cls.tmpc.name, "dlrm.db")
        r = common.run("ingest", d, db=cls.dbc)
        if r.rc != 0:
            raise AssertionError(r.err)
        cls.ranks = {}
        for p in sorted(glob.glob(os.path.join(d, "*.json.gz"))):
            doc = common.load_json(p)
            cls.ranks[doc["distributedInfo"]["rank"]] = doc["traceEvents"]

    @classmethod
    def tearDownClass(cls):
        cls.tmpc.cleanup()

    def setUp(self):
        super().setUp()
        self.db = self.dbc

    def test_overlap_from_interval_unions(self):
        got = {(int(r["rank"]), int(r["device"])): r for r in self.query("comm-overlap")}
        want = {}
        for rank, evs in self.ranks.items():
            per = {}
            for e in evs:
                if ref.kind_of(e) == "kernel":
                    c = per.setdefault(e["pid"], ([], []))
                    c[0 if ref.is_comm(e["name"]) else 1].append(ref.span(e))
            for dev, (comm, comp) in per.items():
                if comm:
                    want[(rank, dev)] = (len(comm), ref.merge(comm), ref.merge(comp))
        self.assertEqual(len(want), 8)
        self.assertEqual(set(got), set(want))
        for key, (n, comm, comp) in want.items():
            r = got[key]
            comm_ns = sum(e - s for s, e in comm)
            comp_ns = sum(e - s for s, e in comp)
            over = ref.intersect_ns(comm, comp)
            wall = sum(e - s for s, e in ref.merge(comm + comp))
            with self.subTest(rank=key[0], device=key[1]):
                self.assertEqual(int(r["comm_kernels"]), n)
                self.assertAlmostEqual(float(r["comm_ms"]), comm_ns / 1e6, delta=MS)
                self.assertAlmostEqual(float(r["comp_ms"]), comp_ns / 1e6, delta=MS)
                self.assertAlmostEqual(float(r["overlap_ms"]), over / 1e6, delta=MS)
                self.assertAlmostEqual(float(r["exposed_comm_ms"]),
                                       (comm_ns - over) / 1e6, delta=MS)
                self.assertAlmostEqual(float(r["wall_ms"]), wall / 1e6, delta=MS)
                self.assertGreater(over, 0)
                self.assertGreater(comm_ns - over, 0)

    def test_alpha_beta_fit_in_python(self):
        per_op = {}
        for evs in self.ranks.values():
            for op, b, d in nccl_samples(evs):
                if b > 0 and d > 0:
                    per_op.setdefault(op, []).append((b, d))
        rows = {r["op"]: r for r in self.query("alpha-beta")}
        self.assertEqual(set(rows), set(per_op))
        for op, s in per_op.items():
            r = rows[op]
            sizes = {b for b, _ in s}
            with self.subTest(op=op):
                self.assertEqual(int(r["samples"]), len(s))
                self.assertEqual(int(r["sizes"]), len(sizes))
                self.assertEqual((int(r["min_bytes"]), int(r["max_bytes"])),
                                 (min(sizes), max(sizes)))
                self.assertEqual(int(r["group_size"]), 8)
                if len(sizes) < 2:
                    # too few sizes to fit: alpha and beta stay empty
                    self.assertEqual((r["alpha_us"], r["beta_gbps"]), ("", ""))
                    continue
                a, b, se_a, se_b, rmse, r2 = fit(s)
                self.assertAlmostEqual(float(r["alpha_us"]), round(a / 1e3, 3), delta=0.0011)
                self.assertAlmostEqual(float(r["alpha_se_us"]), round(se_a / 1e3, 3),
                                       delta=0.0011)
                if b > 0:
                    self.assertAlmostEqual(float(r["beta_gbps"]), round(1 / b, 3),
                                           delta=0.0011)
                    self.assertAlmostEqual(float(r["beta_se_gbps"]),
                                           round(se_b / (b * b), 3), delta=0.0011)
                else:
                    self.assertEqual(r["beta_gbps"], "")
                self.assertAlmostEqual(float(r["rmse_us"]), round(rmse / 1e3, 3), delta=0.0011)
                self.assertAlmostEqual(float(r["r2"]), round(r2, 4), delta=0.00011)
        # at least one collective has a real fit
        self.assertTrue(any(len({b for b, _ in s}) >= 2 for s in per_op.values()))
        self.assertEqual({r["alpha_fit"] for r in rows.values()
                          if r["alpha_us"] != ""}, {"free"})


class V100AlphaNeverNegative(ProfanTest):
    """hta-diff-test-v100-rank1: the free fit of all_reduce has a negative
    intercept (-119.6 µs, three sizes from 1 MB up): alpha is fixed at 0
    and beta fitted through the origin; all_to_all keeps its free fit."""

    def test_alpha_beta_alpha_at_least_zero(self):
        path = shared("traces", "hta-diff-test-v100-rank1.json.gz")
        self.ingest_ok(path)
        per_op = {}
        for op, b, d in nccl_samples(common.events(path)):
            if b > 0 and d > 0:
                per_op.setdefault(op, []).append((b, d))
        rows = {r["op"]: r for r in self.query("alpha-beta")}
        self.assertLess(fit(per_op["all_reduce"])[0], -100e3)
        for op in ("all_reduce", "all_to_all"):
            s, r = per_op[op], rows[op]
            self.assertEqual(int(r["samples"]), len(s))
            a, b = nnls_alpha(s)
            self.assertGreaterEqual(float(r["alpha_us"]), 0.0)
            self.assertAlmostEqual(float(r["alpha_us"]), round(a / 1e3, 3),
                                   delta=0.0011)
            self.assertAlmostEqual(float(r["beta_gbps"]), round(1 / b, 3),
                                   delta=0.0011)
        r = rows["all_reduce"]
        b, se_b, rmse, r2 = fit_origin(per_op["all_reduce"])
        self.assertEqual((r["alpha_us"], r["alpha_fit"], r["alpha_se_us"]),
                         ("0.0", "zero", ""))
        self.assertAlmostEqual(float(r["beta_se_gbps"]),
                               round(se_b / (b * b), 3), delta=0.0011)
        self.assertAlmostEqual(float(r["rmse_us"]), round(rmse / 1e3, 3),
                               delta=0.0011)
        self.assertAlmostEqual(float(r["r2"]), round(r2, 4), delta=0.00011)
        a, b, se_a = fit(per_op["all_to_all"])[:3]
        self.assertEqual(rows["all_to_all"]["alpha_fit"], "free")
        self.assertAlmostEqual(float(rows["all_to_all"]["alpha_se_us"]),
                               round(se_a / 1e3, 3), delta=0.0011)


if __name__ == "__main__":
    unittest.main()
