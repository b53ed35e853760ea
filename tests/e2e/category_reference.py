"""category_reference.py — the oracle's own copy of the kernel categories.

profan classifies kernels with data in its schema (category_rule of
schema/004-categories.sql, the communication patterns and categories of
schema/012-verdicts.sql).  An oracle that read those tables or files would
follow any edit of them: a rule changed from 'gemm' to 'gemn' would change
profan and the oracle alike and no test would fail.  So the rules are
written out here once more, by hand, as they are meant to be; a change to
profan's rules must be made here too, deliberately, or the category tests
fail (test_trace_oracle.py, test_verdicts.py).

A kernel's category in a scheme: the scheme's communication category when
its name matches a communication pattern (case-sensitive glob), else the
category of the lowest-priority rule whose pattern is a case-insensitive
substring of the name, else the scheme's default.
"""
from fnmatch import fnmatchcase

COMM_PATTERNS = (
    "ncclKernel_*", "ncclDevKernel_*", "nccl*Kernel*", "mscclKernel_*",
    "*multimem_all_reduce*", "*multimem_one_shot_all_reduce*",
    "*multimem_all_gather*", "*one_shot_all_reduce*",
    "*two_shot_all_reduce*", "*cross_device_reduce*", "*oneShotAllReduce*",
    "*twoShotAllReduce*", "*allreduce_fusion_kernel*",
    "*lamport*AllReduce*", "*mscclpp*",
)

SCHEMES = {
    "detailed": {
        "default": "Other",
        "comm": "NCCL / communication",
        "rules": (
            (20, "_group_bwd_lora_split", "ScatterMoE bwd LoRA split"),
            (21, "_group_bwd_da", "ScatterMoE bwd LoRA split"),
            (22, "_group_bwd_db", "ScatterMoE bwd LoRA split"),
            (30, "_group_bwd_lora", "ScatterMoE bwd LoRA fused"),
            (40, "_scatter2scatter_lora_dx", "ScatterMoE bwd dX"),
            (50, "_scatter2scatter_lora", "ScatterMoE fwd"),
            (60, "dequantize", "BnB dequantization"),
            (61, "kdequantizeblockwise", "BnB dequantization"),
            (70, "flash", "Flash Attention"),
            (71, "fmha", "Flash Attention"),
            (80, "_cce_", "CCE loss"),
            (90, "lora_qkv", "LoRA QKV kernels"),
            (91, "lora_o", "LoRA O kernels"),
            (92, "lora_mlp", "LoRA MLP kernels"),
            (100, "swiglu", "LoRA activation"),
            (101, "geglu", "LoRA activation"),
            (110, "linalg_norm", "DoRA weight norm"),
            (111, "dora_scale", "DoRA weight norm"),
            (120, "cutlass", "GEMM/CUTLASS"),
            (121, "gemm", "GEMM/CUTLASS"),
            (122, "gemv", "GEMM/CUTLASS"),
            (123, "cublas", "GEMM/CUTLASS"),
            (130, "triton", "Triton"),
            (140, "conv1d", "Conv1d"),
            (141, "causal_conv", "Conv1d"),
            (150, "adam", "Optimizer"),
            (151, "optim", "Optimizer"),
            (160, "_to_copy", "Dtype conversion"),
            (161, "to_copy", "Dtype conversion"),
            (170, "fill", "Elementwise/Fill"),
            (171, "elementwise", "Elementwise/Fill"),
            (172, "cast", "Elementwise/Fill"),
            (173, "copy_kernel", "Elementwise/Fill"),
            (180, "memcpy", "Memory ops"),
            (181, "memset", "Memory ops"),
            (190, "topk", "TopK/Sort"),
            (191, "sort", "TopK/Sort"),
            (200, "index", "Index/Gather/Scatter"),
            (201, "gather", "Index/Gather/Scatter"),
            (202, "scatter", "Index/Gather/Scatter"),
        ),
    },
    "coarse": {
        "default": "other",
        "comm": "comm",
        "rules": (
            (20, "memcpy", "memory"),
            (21, "memset", "memory"),
            (30, "gemm", "matmul"),
            (31, "matmul", "matmul"),
            (32, "bmm", "matmul"),
            (33, "cublas", "matmul"),
            (34, "nvjet", "matmul"),
            (35, "cutlass", "matmul"),
            (36, "dot", "matmul"),
            (37, "mm", "matmul"),
        ),
    },
}


def is_comm(name):
    return any(fnmatchcase(name, p) for p in COMM_PATTERNS)


def classify(name, scheme):
    """The category of kernel (or memcpy/memset) name in scheme."""
    s = SCHEMES[scheme]
    if is_comm(name):
        return s["comm"]
    low = name.lower()
    for _, pat, cat in sorted(s["rules"]):
        if pat in low:
            return cat
    return s["default"]
