"""test_op_formulas.py — FLOPs and bytes of the op kinds added to the
operator model in schema 022 (convolution forward and backward, attention
backward, embedding, RoPE, MoE combine), checked against the formulas of
fixtures/ops/gen_ops.py (written from the operators' definitions, in
Python) on a synthetic H100 trace whose kernels run at known fractions of
their roofline, and on the real B200 vLLM trace where the ops occur.
Calls whose inputs a formula needs are not recorded stay unknown.
"""
import json
import os
import sys

from common import ProfanTest, shared, local, events

sys.path.insert(0, local("ops"))
import gen_ops  # noqa: E402

KIND = {"conv": "conv_fwd", "conv_nobias_1d": "conv_fwd",
        "conv_bwd": "conv_bwd", "sdpa_bwd": "attention_bwd",
        "embedding": "embedding", "rope": "rope", "moe_sum": "moe_combine"}


class SyntheticKinds(ProfanTest):

    def setUp(self):
        super().setUp()
        self.t = gen_ops.kinds()
        p = os.path.join(self.tmp.name, "kinds.pt.trace.json")
        gen_ops.write(self.t, p)
        self.ingest_ok(p)

    def test_flops_bytes_and_efficiency(self):
        calls = {r["name"]: r for r in self.sql(
            "SELECT name, kind, flops, bytes, gpu_ns FROM op_roofline_call")}
        roof = {r["name"]: r for r in self.query(
            "op-roofline", "--param", "limit=100")}
        cases = gen_ops.kind_cases()
        self.assertEqual(len(calls), len(cases))
        for key, name, _, _, _, (fl, by), peak, eff in cases:
            with self.subTest(op=name):
                c = calls[name]
                self.assertEqual(c["kind"], KIND[key])
                self.assertAlmostEqual(float(c["flops"]), fl, delta=1e-9 * fl)
                self.assertAlmostEqual(float(c["bytes"]), by, delta=1e-9 * by)
                (a, b), = self.t.gpu[key]
                self.assertEqual(int(c["gpu_ns"]), b - a)
                # the kernel was generated at eff of its roofline
                self.assertAlmostEqual(float(roof[name]["roofline_pct"]),
                                       100 * eff, delta=0.01)

    def test_unknown_stays_unknown(self):
        kinds = {r["kind"]: r for r in self.query("op-kinds")}
        # paged attention is timed, never modeled
        self.assertEqual(kinds["attention_paged"]["calls"], "1")
        self.assertEqual(kinds["attention_paged"]["modeled_calls"], "0")
        self.assertEqual(kinds["attention_paged"]["roofline_pct"], "")
        # a conv2d without stride/padding, an attention without is_causal
        self.assertEqual(kinds["conv_fwd"]["calls"], "3")
        self.assertEqual(kinds["conv_fwd"]["modeled_calls"], "2")
        self.assertEqual(kinds["attention_fwd"]["calls"], "1")
        self.assertEqual(kinds["attention_fwd"]["modeled_calls"], "0")
        # and op-kinds says why
        self.assertEqual(kinds["attention_paged"]["not_modeled"],
                         "no formula for this kind")
        for k in ("conv_fwd", "attention_fwd"):
            self.assertEqual(kinds[k]["not_modeled"],
                             "1 arguments missing or shapes not fitting", k)
        self.assertEqual(kinds["moe_combine"]["not_modeled"], "")
        # every kind has its rule (rotary_embedding is rope, not embedding)
        for key, kind in KIND.items():
            self.assertEqual(kinds[kind]["modeled_calls"],
                             str(sum(v == kind for v in KIND.values())), kind)


class Tf32(ProfanTest):

    def test_tf32_kernel_gets_the_tf32_peak(self):
        # two fp32 mm 4096^3: a TF32 kernel at 50 % of the tf32 peak, an
        # FP32 SIMT kernel at 50 % of the fp32 peak (H100 SXM datasheet)
        t = gen_ops.tf32()
        p = os.path.join(self.tmp.name, "tf32.pt.trace.json")
        gen_ops.write(t, p)
        self.ingest_ok(p)
        rows = {r["peak"]: r for r in self.query("op-roofline")}
        self.assertEqual(set(rows), {"tf32", "fp32"})
        fl, by = gen_ops.mm(4096, 4096, 4096, 4)
        for peak in ("tf32", "fp32"):
            with self.subTest(peak=peak):
                (a, b), = t.gpu[peak]
                r = rows[peak]
                self.assertAlmostEqual(float(r["tflops"]), fl / (b - a) / 1e3,
                                       places=2)
                self.assertAlmostEqual(
                    float(r["roofline_pct"]),
                    100 * gen_ops.roof_ns(fl, by, peak) / (b - a), places=2)
                self.assertAlmostEqual(float(r["roofline_pct"]), 50, places=1)
        # the chart draws one roofline per peak
        html = os.path.join(self.tmp.name, "r.html")
        r = self.profan("report", "--html", html)
        self.assertEqual(r.rc, 0, r.err)
        with open(html, encoding="utf-8") as f:
            page = f.read()
        self.assertIn("<title>H100 SXM tf32</title>", page)
        self.assertIn("<title>H100 SXM fp32</title>", page)


class RealKinds(ProfanTest):

    def test_b200_embedding_and_rope(self):
        path = shared("traces", "tracelens-b200-vllm-rank0.json.gz")
        self.ingest_ok(path)
        size = {"c10::BFloat16": 2, "float": 4}
        want = {}
        for e in events(path):
            a = e.get("args", {})
            if e.get("cat") != "cpu_op":
                continue
            d, ty, ci = a.get("Input Dims"), a.get("Input type"), \
                a.get("Concrete Inputs")
            if e["name"] == "aten::embedding":
                m = gen_ops.embedding(d[0], d[1], size[ty[0]])
            elif e["name"] == "_C::rotary_embedding":
                m = gen_ops.rope(d[0][0], d[1], d[2], int(ci[3]), d[4][1],
                                 size[ty[1]], size[ty[4]])
            else:
                continue
            f, b = want.get(e["name"], (0, 0))
            want[e["name"]] = (f + m[0], b + m[1])
        self.assertEqual(set(want), {"aten::embedding", "_C::rotary_embedding"})
        got = {r["name"]: r for r in self.sql(
            "SELECT name, sum(flops) AS f, sum(bytes) AS b, count(*) AS n"
            " FROM op_model GROUP BY name")}
        for name, (f, b) in want.items():
            with self.subTest(op=name):
                self.assertAlmostEqual(float(got[name]["f"]), f,
                                       delta=1e-9 * max(f, 1))
                self.assertAlmostEqual(float(got[name]["b"]), b,
                                       delta=1e-9 * b)
        self.assertEqual(got["_C::rotary_embedding"]["n"], "36")
        # paged attention and the whole MoE layer have no formula
        for name in ("vllm::unified_attention_with_output",
                     "vllm::moe_forward"):
            self.assertNotIn(name, got)

    def test_no_shapes_recorded_says_so(self):
        # the 2080 Ti fixture was recorded without shapes: nothing is
        # modeled, and op-kinds says why for every kind with a formula
        path = shared("traces", "param-linear-2080ti.json.gz")
        ev = events(path)
        self.assertFalse(any("Input Dims" in e.get("args", {})
                             or "Input dims" in e.get("args", {})
                             for e in ev))
        self.ingest_ok(path)
        rows = self.query("op-kinds")
        self.assertGreater(len(rows), 2)
        for r in rows:
            with self.subTest(kind=r["kind"]):
                self.assertEqual(r["modeled_calls"], "0")
                if r["kind"] in ("unknown", "reduction"):
                    self.assertEqual(r["not_modeled"],
                                     "no formula for this kind")
                else:
                    self.assertEqual(r["not_modeled"],
                                     r["calls"] + " no shapes recorded")

    def test_a100_write_only_first_argument(self):
        # fill_ writes its tensor, copy_ reads src and writes dst: the
        # destination is not read (A100 fixture, fp32)
        path = shared("traces", "hta-diff-control-a100-rank3.json.gz")
        self.ingest_ok(path)
        want = {}
        for e in events(path):
            a = e.get("args", {})
            if e.get("cat") != "cpu_op" or e["name"] not in (
                    "aten::fill_", "aten::copy_"):
                continue
            d, ty = a.get("Input Dims"), a.get("Input type")
            if not d or ty[0] != "float":          # [] : a 0-d tensor
                continue
            n = 1
            for x in d[0]:
                n *= x
            k = (e["name"], json.dumps(d, separators=(",", ":")))
            want.setdefault(k, set()).add(n * 4 * (1 if "fill" in k[0]
                                                   else 2))
        got = self.sql("SELECT DISTINCT name, dims, bytes FROM op_model"
                       " WHERE name IN ('aten::fill_', 'aten::copy_')"
                       " AND dtype = 'float'")
        self.assertGreater(len(got), 5)
        for r in got:
            with self.subTest(op=(r["name"], r["dims"])):
                self.assertEqual({float(r["bytes"])},
                                 {float(b) for b in want[(r["name"],
                                                          r["dims"])]})

    def test_resnet50_convs_without_arguments_are_unknown(self):
        # the 2021 trace records conv shapes but no Concrete Inputs
        # (stride, padding): the output size is unknown, so are the FLOPs
        path = shared("traces", "kineto-resnet50-2021.pt.trace.json.gz")
        self.ingest_ok(path)
        n = sum(1 for e in events(path)
                if e.get("name") == "aten::cudnn_convolution")
        self.assertGreater(n, 0)
        r = self.sql("SELECT count(*) AS n FROM cpu_op o JOIN string s"
                     " ON s.id = o.name_id"
                     " WHERE s.text = 'aten::cudnn_convolution'")
        self.assertEqual(int(r[0]["n"]), n)
        r = self.sql("SELECT count(*) AS n FROM op_conv_model")
        self.assertEqual(r[0]["n"], "0")
