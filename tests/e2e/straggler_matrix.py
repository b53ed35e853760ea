"""straggler_matrix.py — the full detection / false-alarm matrix of the
straggler finding (issue 31), outside CI: every scenario replays the real
dlrm-8rank run with one rank's clock off by O and one rank delayed by D
before a known set of its collectives (host stall, queued kernel or
slower compute), and profan's straggler findings are graded against the
oracle of straggler_scenarios.py on the true clocks.

    python3 tests/e2e/straggler_matrix.py build/profan [--seed N] [--reps N]
                                         [--n N [--skip K]]

Prints two markdown tables: by clock offset and delay, and the short one
of the README (offsets pooled).  About 3 s a scenario; the default matrix
(5 offsets x 6 delays x 3 kinds x 3 collective counts, zero-delay cells
once per offset) is 230 scenarios; --n N runs N of them
in the seeded shuffled order, after the first K (a sample).  CI runs a seeded handful of them
(test_verdicts.Straggler.test_seeded_detection_table).

Columns: scenarios; "costly": the delay makes the oracle (true clocks)
name the delayed rank, which it would not name without the delay (the
truth: it should be named); detected: profan names it; false alarms:
scenarios where profan names a rank the oracle does not (the
clock-shifted rank above all); agrees: profan's named ranks are exactly
the oracle's; without clock alignment: scenarios where the oracle on the
raw clocks would name the shifted rank although it made nobody wait
(what the alignment prevents).
"""
import os
import random
import sys

import straggler_scenarios as sc

OFFSETS_US = (0, 500, 1000, 2000, 5000)
DELAYS_US = (0, 100, 300, 1000, 2000, 5000)
N_COLL = (1, 4, 8)


def cells(seed, reps):
    rng = random.Random(seed)
    out = []
    for _ in range(reps):
        for off in OFFSETS_US:
            for d in DELAYS_US:
                if d == 0:
                    out.append((off, 0, "host", 0))
                    continue
                for how in sc.KINDS:
                    for nc in N_COLL:
                        out.append((off, d, how, nc))
    rng.shuffle(out)
    return out


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in argv[1:] if a.startswith("--"))
    prof = os.path.abspath(args[0] if args else os.path.join(
        sc.ROOT, "build", "profan"))
    seed, reps = int(opts.get("seed", 31)), int(opts.get("reps", 1))
    todo = cells(seed, reps)
    if "n" in opts:                 # a seeded sample of the matrix
        k = int(opts.get("skip", 0))
        todo = todo[k:k + int(opts["n"])]
    print("%d scenarios (seed %d)\n" % (len(todo), seed))
    rows = sc.table(prof, todo, seed=seed, progress=True)
    print("## by clock offset and delay\n")
    sc.print_table(rows)
    print("\n## offsets pooled\n")
    pooled = {}
    for off, d, n, want, det, false, agree, raw in rows:
        p = pooled.setdefault(d, [0, 0, 0, 0, 0, 0, 0])
        for i, v in enumerate((n, want, det, false, agree, raw,
                               n if off > 0 else 0)):
            p[i] += v
    print("| delay D (ms) | scenarios | costly | detected | false alarms |"
          " agrees with the oracle | without clock alignment |")
    print("|---|---|---|---|---|---|---|")
    for d in sorted(pooled):
        n, want, det, false, agree, raw, shifted = pooled[d]
        print("| %s | %d | %d | %d (%s) | %d (%.0f %%) | %d (%.0f %%) |"
              " %d of %d shifted (%.0f %%) |"
              % ("none" if d == 0 else "%g" % d, n, want, det,
                 "%.0f %%" % (100.0 * det / want) if want else "-", false,
                 100.0 * false / n, agree, 100.0 * agree / n, raw, shifted,
                 100.0 * raw / shifted if shifted else 0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
