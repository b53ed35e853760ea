-- 004-categories.sql — kernel classification as data.
-- A kernel's category in a scheme is the category of the lowest-priority
-- rule whose pattern is a case-insensitive substring of its name, else the
-- scheme's default.  Add rules with plain SQL; the views follow:
--   INSERT INTO category_rule VALUES('detailed', 5, 'my_kernel', 'Mine');

CREATE TABLE category_scheme(
  scheme TEXT PRIMARY KEY,
  default_category TEXT NOT NULL,
  description TEXT
);

CREATE TABLE category_rule(
  scheme TEXT NOT NULL REFERENCES category_scheme(scheme),
  priority INTEGER NOT NULL,       -- lower wins
  pattern TEXT NOT NULL,           -- substring, matched case-insensitively
  category TEXT NOT NULL,
  PRIMARY KEY(scheme, priority, pattern)
);

INSERT INTO category_scheme VALUES
  ('detailed', 'Other', 'fine-grained kernel families (design brief)'),
  ('coarse', 'other', 'comm / memory / matmul / other');

INSERT INTO category_rule(scheme, priority, pattern, category) VALUES
  ('detailed', 10, 'nccl', 'NCCL / communication'),
  ('detailed', 11, 'rccl', 'NCCL / communication'),
  ('detailed', 20, '_group_bwd_lora_split', 'ScatterMoE bwd LoRA split'),
  ('detailed', 21, '_group_bwd_da', 'ScatterMoE bwd LoRA split'),
  ('detailed', 22, '_group_bwd_db', 'ScatterMoE bwd LoRA split'),
  ('detailed', 30, '_group_bwd_lora', 'ScatterMoE bwd LoRA fused'),
  ('detailed', 40, '_scatter2scatter_lora_dx', 'ScatterMoE bwd dX'),
  ('detailed', 50, '_scatter2scatter_lora', 'ScatterMoE fwd'),
  ('detailed', 60, 'dequantize', 'BnB dequantization'),
  ('detailed', 61, 'kdequantizeblockwise', 'BnB dequantization'),
  ('detailed', 70, 'flash', 'Flash Attention'),
  ('detailed', 71, 'fmha', 'Flash Attention'),
  ('detailed', 80, '_cce_', 'CCE loss'),
  ('detailed', 90, 'lora_qkv', 'LoRA QKV kernels'),
  ('detailed', 91, 'lora_o', 'LoRA O kernels'),
  ('detailed', 92, 'lora_mlp', 'LoRA MLP kernels'),
  ('detailed', 100, 'swiglu', 'LoRA activation'),
  ('detailed', 101, 'geglu', 'LoRA activation'),
  ('detailed', 110, 'linalg_norm', 'DoRA weight norm'),
  ('detailed', 111, 'dora_scale', 'DoRA weight norm'),
  ('detailed', 120, 'cutlass', 'GEMM/CUTLASS'),
  ('detailed', 121, 'gemm', 'GEMM/CUTLASS'),
  ('detailed', 122, 'gemv', 'GEMM/CUTLASS'),
  ('detailed', 123, 'cublas', 'GEMM/CUTLASS'),
  ('detailed', 130, 'triton', 'Triton'),
  ('detailed', 140, 'conv1d', 'Conv1d'),
  ('detailed', 141, 'causal_conv', 'Conv1d'),
  ('detailed', 150, 'adam', 'Optimizer'),
  ('detailed', 151, 'optim', 'Optimizer'),
  ('detailed', 160, '_to_copy', 'Dtype conversion'),
  ('detailed', 161, 'to_copy', 'Dtype conversion'),
  ('detailed', 170, 'fill', 'Elementwise/Fill'),
  ('detailed', 171, 'elementwise', 'Elementwise/Fill'),
  ('detailed', 172, 'cast', 'Elementwise/Fill'),
  ('detailed', 173, 'copy_kernel', 'Elementwise/Fill'),
  ('detailed', 180, 'memcpy', 'Memory ops'),
  ('detailed', 181, 'memset', 'Memory ops'),
  ('detailed', 190, 'topk', 'TopK/Sort'),
  ('detailed', 191, 'sort', 'TopK/Sort'),
  ('detailed', 200, 'index', 'Index/Gather/Scatter'),
  ('detailed', 201, 'gather', 'Index/Gather/Scatter'),
  ('detailed', 202, 'scatter', 'Index/Gather/Scatter'),
  ('coarse', 10, 'nccl', 'comm'),
  ('coarse', 11, 'rccl', 'comm'),
  ('coarse', 12, 'allreduce', 'comm'),
  ('coarse', 13, 'allgather', 'comm'),
  ('coarse', 14, 'reduce_scatter', 'comm'),
  ('coarse', 20, 'memcpy', 'memory'),
  ('coarse', 21, 'memset', 'memory'),
  ('coarse', 30, 'gemm', 'matmul'),
  ('coarse', 31, 'matmul', 'matmul'),
  ('coarse', 32, 'bmm', 'matmul'),
  ('coarse', 33, 'cublas', 'matmul'),
  ('coarse', 34, 'nvjet', 'matmul'),
  ('coarse', 35, 'cutlass', 'matmul'),
  ('coarse', 36, 'dot', 'matmul'),
  ('coarse', 37, 'mm', 'matmul');
