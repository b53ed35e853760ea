"""roofline_reference.py — the hierarchical roofline of one operator call,
computed here from the vendors' figures (the tests' oracle for
op_roofline_core, schema 064; never profan's own tables).

GPU figures, from the sources the README's roofline section cites:
  peaks and HBM TB/s: the datasheets (dense);
  L2 capacity: V100 6,144 KB (Volta whitepaper), A100 40 MB (Ampere
    whitepaper), H100 50 MB (Hopper whitepaper);
  L2 bandwidth: bytes per clock x boost clock, the clock being the FP32
    peak / (2 x FP32 cores): V100 2,048 B/clk and A100 5,120 B/clk
    (Ampere whitepaper p. 35), H100 taken at A100's 5,120 B/clk.

The rule (README "Operator performance model and roofline"): every byte
passes the L2 (bytes / L2 bandwidth); when the call's distinct tensors
(footprint) fit in L2 nothing must come from HBM, else all but one L2
capacity of its bytes; the roof is the largest of FLOPs / peak and the
two memory times, the tier the memory level of the larger memory time.
A duration recorded in whole µs may be 1 µs short: the efficiency
divides by the GPU time + 1 µs per GPU interval of such a trace.
"""

MIB = 1024 * 1024


def _l2_tbps(bytes_per_clk, fp32_tflops, fp32_cores):
    return bytes_per_clk * (fp32_tflops * 1e12 / (2 * fp32_cores)) / 1e12


GPU = {
    "H100 SXM": {"fp32": 67.0, "tf32": 494.7, "bf16": 989.4, "fp16": 989.4,
                 "hbm": 3.35, "l2_bytes": 50 * MIB,
                 "l2_tbps": _l2_tbps(5120, 67.0, 132 * 128)},
    "V100 SXM2": {"fp32": 15.7, "fp16": 125.0, "hbm": 0.900,
                  "l2_bytes": 6 * MIB, "l2_tbps": _l2_tbps(2048, 15.7, 5120)},
    "A100 40GB SXM": {"fp32": 19.5, "tf32": 156.0, "bf16": 312.0,
                      "fp16": 312.0, "hbm": 1.555, "l2_bytes": 40 * MIB,
                      "l2_tbps": _l2_tbps(5120, 19.5, 6912)},
}


def roof(gpu, peak, flops, nbytes, footprint=None):
    """(roof_ns, tier, bound, hbm_bytes) of one call on GPU gpu at peak
    column peak ('fp32', 'bf16' ...)."""
    g = GPU[gpu]
    if footprint is None:
        footprint = nbytes
    compute = flops / (g[peak] * 1e3)
    l2 = nbytes / (g["l2_tbps"] * 1e3)
    hbm_bytes = 0.0 if footprint <= g["l2_bytes"] \
        else max(0.0, nbytes - g["l2_bytes"])
    hbm = hbm_bytes / (g["hbm"] * 1e3)
    mem = max(l2, hbm)
    return (max(compute, mem), "l2" if l2 > hbm else "hbm",
            "compute" if compute >= mem else "memory", hbm_bytes)


def pct(roof_ns_sum, gpu_ns_sum, n_whole=0):
    """roofline_pct of a row: roofline time over GPU time, each whole-µs
    interval counted 1 µs longer."""
    return 100.0 * roof_ns_sum / (gpu_ns_sum + 1000 * n_whole)
