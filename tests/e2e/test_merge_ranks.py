"""test_merge_ranks.py — the many-rank run of bench/make_ranks.py (issue
19) and how the HTML report shows it.

64 ranks made from dlrm-8rank (rank r copies fixture rank r % 8, clocks
jittered, rank 64*137//256 = 34 stalled three ms before every
collective).  Known from that construction: rank-skew names rank 34 the
straggler; past 32 ranks the report draws the per-rank step times as a
histogram whose bin counts are computed here from the generated traces'
ProfilerStep durations, and bars for the outlier ranks only (the
straggler among them), never one bar per rank.
"""
import os
import re
import subprocess
import sys

from common import ProfanTest, ROOT, shared, load_json

sys.path.insert(0, os.path.join(ROOT, "bench"))
import make_ranks  # noqa: E402

N = 64
LATE = N * 137 // 256


def step_ms(doc):
    d = [e["dur"] for e in doc["traceEvents"]
         if e.get("name", "").startswith("ProfilerStep#")]
    return sum(d) / len(d) / 1000.0


class ManyRanks(ProfanTest):

    def test_merge_ranks_64_report_summarised(self):
        shared("runs", "dlrm-8rank")
        out = os.path.join(self.tmp.name, "r64")
        make_ranks.make(out, N)
        self.ingest_ok(out, extra=["--name", "r64", "--quiet"])
        rows = self.query("rank-skew")
        self.assertEqual(len(rows), N)
        self.assertEqual([r["rank"] for r in rows if r["straggler"] == "1"],
                         [str(LATE)])
        html = os.path.join(self.tmp.name, "r64.html")
        r = self.profan("report", "--html", html)
        self.assertEqual(r.rc, 0, r.err)
        with open(html) as f:
            page = f.read()

        def chart(cid):
            i = page.index('id="%s"' % cid)
            return page[i:page.index("</svg>", i)]
        # the histogram: bin counts from the traces' step durations
        docs = {}
        for f in os.listdir(out):
            d = load_json(os.path.join(out, f))
            docs[d["distributedInfo"]["rank"]] = step_ms(d)
        v = [docs[r] for r in range(N)]
        lo, hi = min(v), max(v)
        w = (hi - lo) / 12
        want = [0] * 12
        for x in v:
            want[min(int((x - lo) / w), 11)] += 1
        got = [int(n) for n in re.findall(r'class="lbl">(\d+) ranks?<',
                                          chart("chart-rank-steps-hist"))]
        self.assertEqual(got, want)
        # the outlier bars: the straggler, the slowest and fastest, few
        bars = chart("chart-rank-steps")
        ranks = re.findall(r">rank (\d+)<", bars)
        self.assertLessEqual(len(ranks), 12)
        self.assertGreaterEqual(len(ranks), 5)
        self.assertIn(str(LATE), ranks)
        self.assertIn("straggler", bars)
        slowest = max(range(N), key=lambda r: (v[r], -r))
        fastest = min(range(N), key=lambda r: (v[r], r))
        self.assertEqual(v[int(ranks[0])], v[slowest])
        self.assertIn(v[int(ranks[-1])], (v[fastest],))
        # the stacks: the mean of all ranks and the outliers only
        for cid in ("chart-step-breakdown", "chart-comm-overlap"):
            c = chart(cid)
            self.assertIn("mean of %d" % N, c)
            self.assertLessEqual(len(set(re.findall(r">rank (\d+)", c))),
                                 12, cid)
        # the per-rank HTA sections list the outlier ranks only: the
        # ranks of the step bars, every one of them, no other
        for sec, nxt in (("idle-breakdown", "queue-length"),
                         ("queue-length", "critical-path"),
                         ("critical-path", "roofline")):
            part = page[page.index('id="h-%s"' % sec):
                        page.index('id="h-%s"' % nxt)]
            self.assertTrue("the %d outlier ranks" % len(ranks) in part,
                            "%s: no note on the outlier ranks" % sec)
            body = part[part.index("<tbody>"):part.index("</tbody>")]
            shown = set(re.findall(r'<tr><td class="n" data-v="(\d+)"',
                                   body))
            self.assertEqual(shown, set(ranks), sec)
