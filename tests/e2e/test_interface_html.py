"""test_interface_html.py — the HTML points of issue 17: no internal
wording, findings shown whole (no scroll box), one colour per category
across the page, bar labels that tell kernels apart (full name on hover),
"1 step" and one number format, a trend chart whose axis has one number
style and whose regression labels sit next to their markers without
overlapping, a snapshot-only report with only the sections it has data
for, and `report --html --step N` of a missing step exiting 2.

Category truth comes from category_rule applied here in Python (lowest
priority substring match), kernel names from the trace files.
"""
import math
import os
import fnmatch
import re
import sqlite3

import common
from common import ProfanTest, shared, local

FIG = re.compile(r'<figure id="([^"]+)"(.*?)</figure>', re.S)
BAR = re.compile(r'<g><title>(.*?): [^<]*</title>\n<text[^>]*>(.*?)</text>\n'
                 r'<rect[^>]*fill="url\(#pf(\d+)\)"')


def unescape(z):
    return (z.replace("&lt;", "<").replace("&gt;", ">")
            .replace("&quot;", '"').replace("&#39;", "'")
            .replace("&amp;", "&"))


class HtmlInterface(ProfanTest):

    def page(self, *args):
        path = os.path.join(self.tmp.name, "p.html")
        r = self.profan(*args, "--html", path)
        self.assertEqual(r.rc, 0, r.err)
        with open(path, encoding="utf-8") as f:
            return f.read()

    def figures(self, text):
        return {m.group(1): m.group(2) for m in FIG.finditer(text)}

    def category_of(self, name, scheme="detailed"):
        """category_rule applied in Python: lowest priority pattern that is
        a case-insensitive substring, else the scheme's default."""
        db = sqlite3.connect(self.db)
        rules = db.execute("SELECT priority, pattern, category FROM"
                           " category_rule WHERE scheme = ? ORDER BY"
                           " priority", (scheme,)).fetchall()
        (dflt,) = db.execute("SELECT default_category FROM category_scheme"
                             " WHERE scheme = ?", (scheme,)).fetchone()
        # communication first: comm_pattern's GLOBs (issue 13), in Python
        comm = db.execute("SELECT pattern FROM comm_pattern").fetchall()
        ccat = db.execute("SELECT category FROM category_comm WHERE"
                          " scheme = ?", (scheme,)).fetchone()
        db.close()
        if ccat and any(fnmatch.fnmatchcase(name, p) for (p,) in comm):
            return ccat[0]
        for _, pat, cat in rules:
            if pat.lower() in name.lower():
                return cat
        return dflt

    def test_wording_findings_colours_labels_numbers(self):
        d = shared("runs", "dlrm-8rank")
        self.ingest_ok(d)
        text = self.page("report")
        # no internal wording in the product
        for bad in ("design brief", "(brief)", "TODO", "XXX"):
            self.assertNotIn(bad, text)
        # findings: the whole table, never inside a fixed-height box
        m = re.search(r'<section id="findings".*?</section>', text, re.S)
        self.assertIn('<div class="tables full"><table class="data findings'
                      ' full">', m.group(0))
        self.assertIn(".tables.full{max-height:none;overflow:visible}", text)
        figs = self.figures(text)
        # one style per category across the page
        style = {}
        for fid in ("chart-categories-coarse", "chart-categories-detailed"):
            scheme = fid.rsplit("-", 1)[1]
            bars = BAR.findall(figs[fid])
            self.assertGreater(len(bars), 2)
            for full, _, st in bars:
                style.setdefault(unescape(full).lower(), set()).add(st)
        for cat, sts in style.items():
            self.assertEqual(len(sts), 1, cat)
        det = BAR.findall(figs["chart-categories-detailed"])
        top = [st for _, _, st in det[:9]]
        self.assertEqual(len(top), len(set(top)))      # distinct colours
        det_style = {unescape(c): st for c, _, st in det}
        kern = BAR.findall(figs["chart-top-kernels"])
        self.assertEqual(len(kern), 15)
        for full, _, st in kern:
            self.assertEqual(st, det_style[self.category_of(unescape(full))],
                             full)
        # labels: different kernels read differently, full name on hover
        labels = [unescape(lab) for _, lab, _ in kern]
        fulls = [unescape(f) for f, _, _ in kern]
        self.assertEqual(len(set(labels)), len(set(fulls)))
        for lab in labels:
            self.assertLessEqual(len(lab), 34)
        names = set()
        for path in os.listdir(d):
            for e in common.events(os.path.join(d, path)):
                if e.get("cat") == "kernel":
                    names.add(e["name"])
        for f in fulls:
            if not f.startswith("Memcpy") and not f.startswith("Memset"):
                self.assertIn(f, names)
        # rank bars: "1 step", not "1 steps"
        self.assertIn(" vs mean, 1 step)", text)
        self.assertNotIn("1 steps", text)
        # numbers: no exponent in chart texts, no "6.0" whole numbers in
        # tables
        for fid, body in figs.items():
            for t in re.findall(r"<text[^>]*>([^<]*)</text>", body):
                self.assertNotRegex(t, r"\de[+-]\d", (fid, t))
        tab = re.search(r"<caption>rank-skew</caption>(.*?)</table>", text,
                        re.S).group(1)
        head = re.findall(r'<th scope="col">([^<]*)</th>', tab)
        k = head.index("steps")
        rows = re.findall(r"<tr>(<td.*?)</tr>", tab)
        self.assertEqual(len(rows), 8)
        for row in rows:
            cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
            self.assertEqual(cells[k], "1")
        # whole REAL values print whole, not "6.0" (pct keeps 1 decimal)
        for name_v, cell in re.findall(r'data-v="(-?\d+)\.0">([^<]*)</td>',
                                       text):
            self.assertTrue(cell == name_v or cell.endswith(" B")
                            or cell == name_v + ".0", cell)

    def test_trend_axis_and_labels(self):
        runs = [local("sample-run"),
                shared("traces", "hta-compare-base.json.gz"),
                shared("traces", "kineto-h100-2026-before.json"),
                shared("traces", "hta-compare-test.json.gz"),
                shared("traces", "kineto-h100-2026-after.json"),
                shared("runs", "dlrm-8rank"),
                shared("traces", "param-linear-2080ti.json.gz"),
                shared("traces", "hta-alexnet-a100.json.gz")]
        for p in runs:
            self.ingest_ok(p)
        text = self.page("trend", "step_time_p90_ms")
        body = self.figures(text)["chart-trend"]
        ticks = re.findall(r'<text x="[\d.]+" y="[\d.]+" text-anchor="end"'
                           r' class="muted">([^<]*)</text>', body)
        self.assertGreater(len(ticks), 3)
        for t in ticks:
            self.assertRegex(t, r"^-?\d+(\.\d+)?$", t)    # one style, no e+
        marks = re.findall(r'<g><title>(regression[^<]*)</title>(.*?)</g>',
                           body, re.S)
        self.assertGreaterEqual(len(marks), 2)
        boxes = []
        for label, g in marks:
            mk = re.search(r'<path[^>]*d="M([\d.]+) ([\d.]+)', g) or \
                re.search(r'cx="([\d.]+)" cy="([\d.]+)"', g)
            self.assertIsNotNone(mk, g)
            mx, my = float(mk.group(1)), float(mk.group(2))
            tx = re.search(r'<text x="([\d.]+)" y="([\d.]+)"'
                           r'(?: text-anchor="(\w+)")?', g)
            x, y = float(tx.group(1)), float(tx.group(2))
            w = 6.8 * len(unescape(label))
            x0 = x - w if tx.group(3) == "end" else x
            boxes.append((x0, x0 + w, y - 12, y + 2))
            # next to its marker: 6-10 px beside it, at most 2 lines away
            self.assertLessEqual(abs(x - mx), 12, label)
            self.assertLessEqual(abs(y - my), 16 + 2 * 14 + 1, label)
        for i in range(len(boxes)):
            for j in range(i):
                a, b = boxes[i], boxes[j]
                overlap = a[0] < b[1] and b[0] < a[1] and a[2] < b[3] \
                    and b[2] < a[3]
                self.assertFalse(overlap, (marks[i][0], marks[j][0]))

    def test_snapshot_only_report(self):
        self.ingest_ok(shared("snapshots", "tomi-small.pickle"))
        text = self.page("report")
        self.assertEqual(re.findall(r'<section id="([^"]+)"', text),
                         ["summary", "findings", "memory", "segments",
                          "churn"])
        nav = re.search(r"<nav.*?</nav>", text, re.S).group(0)
        self.assertEqual(re.findall(r'href="#([^"]+)"', nav),
                         ["summary", "findings", "memory", "segments",
                          "churn"])
        summ = re.search(r'<caption>report-summary</caption>(.*?)</table>',
                         text, re.S).group(1)
        items = re.findall(r"<tr><td>([^<]*)</td>", summ)
        self.assertNotIn("ranks", items)
        self.assertNotIn("steps", items)
        self.assertIn("memory peak allocated GiB", items)
        self.assertIn("This run has no GPU activity, steps, communication"
                      " kernels: the sections that need them are left out.",
                      text)

    def test_missing_step_exits_2(self):
        self.ingest_ok(local("sample-run"))
        out = os.path.join(self.tmp.name, "s.html")
        r = self.profan("report", "--html", out, "--step", "99")
        self.assertEqual(r.rc, 2)
        self.assertEqual(r.err, "profan: run 1 has no step 99 (rank 0 has"
                         " steps 10..13)\n")
        self.assertFalse(os.path.exists(out))
