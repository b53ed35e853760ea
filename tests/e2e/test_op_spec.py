"""test_op_spec.py — gpu_spec (schema 016, corrected and cited in 022):
which row each GPU name of the fixtures (and the common parts) matches,
with the datasheet figures written here from the vendors' tables (Tensor
Core rates printed with sparsity, halved), and every row citing a source
described in the schema file.
"""
import json
import os
import re

from common import ProfanTest, ROOT

# name, CUs/SMs -> (gpu, fp32, bf16, fp16, fp8, tf32, TB/s); None: no unit
WANT = [
    ("NVIDIA B200", 148, ("B200 (HGX)", 75, 4500 / 2, 4500 / 2, 9000 / 2,
                          2200 / 2, 7.7)),
    ("NVIDIA A100-PG509-200", 108, ("A100 40GB SXM", 19.5, 312, 312, None,
                                    156, 1.555)),
    ("NVIDIA A100-SXM4-80GB", 108, ("A100 80GB SXM", 19.5, 312, 312, None,
                                    156, 2.039)),
    ("NVIDIA A100 80GB PCIe", 108, ("A100 80GB PCIe", 19.5, 312, 312, None,
                                    156, 1.935)),
    ("NVIDIA A100-PCIE-40GB", 108, ("A100 40GB PCIe", 19.5, 312, 312, None,
                                    156, 1.555)),
    ("Tesla V100-SXM2-16GB", 80, ("V100 SXM2", 15.7, None, 125, None, None,
                                  0.9)),
    ("Tesla V100-PCIE-32GB", 80, ("V100 PCIe", 14, None, 112, None, None,
                                  0.9)),
    ("NVIDIA GeForce RTX 2080 Ti", 68, ("GeForce RTX 2080 Ti", 13.4, None,
                                        53.8, None, None, 0.616)),
    ("NVIDIA H100", 132, ("H100 SXM", 67, 1979 / 2, 1979 / 2, 3958 / 2,
                          989 / 2, 3.35)),
    ("NVIDIA H100 80GB HBM3", 132, ("H100 SXM", 67, 1979 / 2, 1979 / 2,
                                    3958 / 2, 989 / 2, 3.35)),
    ("NVIDIA H100 PCIe", 114, ("H100 PCIe", 51, 1513 / 2, 1513 / 2,
                               3026 / 2, 756 / 2, 2.0)),
    ("NVIDIA H100 NVL", 132, ("H100 NVL", 60, 1671 / 2, 1671 / 2, 3341 / 2,
                              835 / 2, 3.9)),
    ("NVIDIA H200", 132, ("H200 SXM", 67, 1979 / 2, 1979 / 2, 3958 / 2,
                          989 / 2, 4.8)),
    ("AMD Instinct MI300X", 304, ("MI300X", 163.4, 1307.4, 1307.4, 2614.9,
                                  653.7, 5.3)),
    # MI250/X: ROCm shows each of the two dies: half the module's figures
    ("AMD Instinct MI250X", 110, ("MI250X (one GCD)", 95.7 / 2, 383 / 2,
                                  383 / 2, None, None, 3.2768 / 2)),
    ("AMD Radeon Graphics", 110, ("MI250X (one GCD)", 95.7 / 2, 383 / 2,
                                  383 / 2, None, None, 3.2768 / 2)),
    ("AMD Radeon Graphics", 104, ("MI250 (one GCD)", 90.5 / 2, 362.1 / 2,
                                  362.1 / 2, None, None, 3.2768 / 2)),
]
COLS = ("gpu", "fp32", "bf16", "fp16", "fp8", "tf32", "mem_tbps")


class GpuSpec(ProfanTest):

    def ingest_devices(self):
        ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
               "ts": 1000.0, "dur": 5.0,
               "args": {"device": 0, "stream": 7, "correlation": 1}}]
        props = [{"id": i, "name": n, "totalGlobalMem": 1 << 34,
                  "computeMajor": 9, "computeMinor": 0, "numSms": sms}
                 for i, (n, sms, _) in enumerate(WANT)]
        p = os.path.join(self.tmp.name, "devs.pt.trace.json")
        with open(p, "w") as f:
            json.dump({"schemaVersion": 1, "deviceProperties": props,
                       "traceEvents": ev}, f)
        self.ingest_ok(p)

    def test_rows_per_device_name(self):
        self.ingest_devices()
        got = {int(r["device"]): r for r in self.sql(
            "SELECT device, %s FROM device_spec" % ", ".join(COLS))}
        self.assertEqual(len(got), len(WANT))
        for i, (name, sms, want) in enumerate(WANT):
            with self.subTest(name=name, sms=sms):
                r = got[i]
                self.assertEqual(r["gpu"], want[0])
                for c, w in zip(COLS[1:], want[1:]):
                    if w is None:
                        self.assertEqual(r[c], "", c)
                    else:
                        # datasheets round to 4 digits: 0.2 %
                        self.assertAlmostEqual(float(r[c]), w, delta=2e-3 * w,
                                               msg=c)

    def test_one_set_of_figures_per_part(self):
        # op-roofline reads a call's modeled values once per (signature,
        # gpu, peak): rows naming the same part must carry the same figures
        self.ingest_devices()
        rows = self.sql("SELECT gpu, fp32, tf32, bf16, fp16, fp8, int8,"
                        " mem_tbps, l2_mb, l2_tbps FROM gpu_spec")
        seen = {}
        for r in rows:
            figures = tuple(r[c] for c in ("fp32", "tf32", "bf16", "fp16",
                                           "fp8", "int8", "mem_tbps",
                                           "l2_mb", "l2_tbps"))
            with self.subTest(gpu=r["gpu"]):
                self.assertEqual(seen.setdefault(r["gpu"], figures), figures)
        self.assertGreater(len(rows), len(seen))    # one part has two rows

    def test_every_row_cites_a_described_source(self):
        self.ingest_devices()
        with open(os.path.join(ROOT, "schema", "001-baseline.sql"),
                  encoding="utf-8") as f:
            text = f.read()
        described = set(re.findall(r"^--   (\[[A-Z0-9]+\])", text, re.M))
        self.assertGreaterEqual(len(described), 8)
        rows = self.sql("SELECT gpu, source FROM gpu_spec UNION ALL"
                        " SELECT gpu, source FROM gpu_spec_cu")
        self.assertGreaterEqual(len(rows), 18)
        for r in rows:
            key = re.match(r"\[[A-Z0-9]+\]", r["source"])
            self.assertIsNotNone(key, r)
            self.assertIn(key.group(0), described, r)
