#!/usr/bin/env python3
"""ingest_instructions.py — issue 29's speed check in instructions: one
ingest of each bench shape's 1x source (bench.py's shape_inputs) into a new
database under `valgrind --tool=callgrind`, counting the instructions of all
threads (Ir).  Load-independent, so it works on a shared machine; it misses
memory-bound work (bench/README.md "Round 12 merged": mtia's automatic
index), so confirm with CPU seconds.

usage: python3 bench/ingest_instructions.py PROFAN [--base PROFAN_REF]
                                            [SHAPE_SUBSTRING ...]

Without --base the reference is ed5f057's Ir per shape as measured on
2026-11-29 (bench/README.md, "Ingest against ed5f057 in instructions").
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402

ED5F057 = {'hta-diff-control-a100-rank3': 2503, 'hta-diff-test-v100-rank1': 2370,
           'hta-mtia-rank0': 5718, 'kineto-resnet50-2021-workers4': 1565,
           'kineto-resnet50-2021': 1778, 'param-linear-2080ti': 1778,
           'tracelens-b200-vllm-rank0': 688, 'tracelens-mi300-resnet-ckpt': 1392,
           'dlrm-rank0': 255, 'synthetic-2021': 2400, 'synthetic-stack': 2746,
           'synthetic-memory': 3541}


def instructions(binary, src):
    """Millions of instructions of one ingest of src by binary."""
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run(['valgrind', '--tool=callgrind',
                            '--callgrind-out-file=/dev/null', binary, '--db',
                            os.path.join(d, 'x.db'), 'ingest', '--quiet', src],
                           capture_output=True, text=True)
    m = re.search(r'Collected : (\d+)', r.stderr)
    if r.returncode != 0 or not m:
        sys.exit('ingest failed on %s: %s' % (src, r.stderr[-500:]))
    return int(m.group(1)) / 1e6


def main():
    args = sys.argv[1:]
    base = None
    if '--base' in args:
        i = args.index('--base')
        base = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    if not args:
        sys.exit(__doc__)
    exe, pats = os.path.abspath(args[0]), args[1:]
    print('| shape | reference Ir (M) | this Ir (M) | this / reference |')
    print('|---|---:|---:|---:|', flush=True)
    for name, src in bench.shape_inputs(os.path.join(HERE, 'out'), 1):
        if pats and not any(p in name for p in pats):
            continue
        ref = instructions(base, src) if base else ED5F057[name]
        this = instructions(exe, src)
        print('| %s | %.0f | %.0f | %.3f |' % (name, ref, this, this / ref),
              flush=True)


if __name__ == '__main__':
    main()
