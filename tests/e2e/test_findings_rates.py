"""test_findings_rates.py — the seeded short version of
findings_scenarios.py (issue 31): one scenario per kind of change (a real
trace with one class of GPU work stretched or shortened by a known factor,
a real snapshot with known segments emptied or holes freed, a real NCCL
log with known WARN lines, a trace as recorded), drawn with a fixed seed;
every graded finding must agree with the verdict recomputed from the
changed input: fires when it should, stays quiet when it should not, with
the oracle's value, severity and hint.  The whole set (and the rates in
docs/findings.md) is `python3 tests/e2e/findings_scenarios.py build/profan`.

RuleRates: step-variation, optimizer, copy-ops and top-category each on
a seeded draw of their own scenarios (findings_scenarios.rule_scenarios:
a stall in a step or in Optimizer.step, copy kernels or one category
stretched, on the smallest real traces that have what the change needs):
the largest stall or stretch and the smallest (or the strongest
shortening), so the rule is graded on both sides; every verdict must agree with the oracle and the rates reach
findings_scenarios.TARGETS."""
import os
import random

import common
import findings_scenarios as fsc
from common import ProfanTest

SEED = int(os.environ.get("PROFAN_SCENARIO_SEED", "31"))
# the largest trace (25 MB of JSON) is left to the whole set: CI stays short
SLOW = ("hta-diff-control",)


class FindingRates(ProfanTest):

    def test_seeded_scenarios_agree_with_the_oracle(self):
        common.shared("traces")             # fails under CI, skips otherwise
        kinds = {}
        for s in fsc.scenarios():
            if not s[1].startswith(SLOW):
                kinds.setdefault(s[0], []).append(s)
        rng = random.Random(SEED)
        picked = [rng.choice(kinds[k]) for k in sorted(kinds)]
        rows = fsc.table(common.PROFAN, picked)
        wrong = [(ru, w) for ru, c in rows.items() for w in c["wrong"]]
        self.assertEqual(wrong, [])
        # the draw grades both sides of most thresholds
        self.assertGreater(sum(c["pos"] for c in rows.values()), 3)
        self.assertGreater(sum(c["neg"] for c in rows.values()), 3)


# the smallest real traces that have what each kind changes
CI_TRACES = {
    "step-variation": ("kineto-resnet50-2021.pt.trace.json.gz",),
    "optimizer": ("hta-mi250-rocm62.json.gz", "hta-no-rank.json.gz"),
    "copy-ops": ("tracelens-b200-vllm-rank0.json.gz",),
    "top-category": ("hta-compare-base.json.gz", "hta-compare-test.json.gz",
                     "hta-alexnet-a100.json.gz"),
}


def size(label):
    """The change of a scenario label: the stall share or the factor."""
    for w in label.split():
        if w.startswith("x"):
            return float(w[1:])
    return float(label.split(" stall ")[1].split()[0])


class RuleRates(ProfanTest):

    def rates_of(self, rule):
        common.shared("traces")             # fails under CI, skips otherwise
        sc = [s for s in fsc.rule_scenarios(names=set(CI_TRACES[rule]))
              if s[0] == rule]
        rng = random.Random("%s/%d" % (rule, SEED))
        big = max(size(s[1]) for s in sc)
        small = min(size(s[1]) for s in sc)
        picked = [rng.choice([s for s in sc if size(s[1]) == big]),
                  rng.choice([s for s in sc if size(s[1]) == small])]
        rows = fsc.table(common.PROFAN, picked, only={rule})
        c = rows[rule]
        self.assertEqual(c["wrong"], [], [p[1] for p in picked])
        self.assertEqual(fsc.below_targets({rule: c}), [])
        # both sides of the threshold graded
        self.assertGreaterEqual(c["pos"], 1, [p[1] for p in picked])
        self.assertGreaterEqual(c["neg"], 1, [p[1] for p in picked])

    def test_step_variation(self):
        self.rates_of("step-variation")

    def test_optimizer(self):
        self.rates_of("optimizer")

    def test_copy_ops(self):
        self.rates_of("copy-ops")

    def test_top_category(self):
        self.rates_of("top-category")
