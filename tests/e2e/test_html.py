"""test_html.py — end-to-end tests of the HTML reports (issue 8):
`profan report RUN --html FILE`, `profan diff A B --html FILE` and
`profan trend METRIC --html FILE`.

Each page is parsed with Python's html.parser.  The structure is checked
(doctype, lang, charset, viewport, <title>, sections with stable ids, one
<svg role="img"> with a <title> per <figure>, a table after every chart,
no scripts, links, fonts or URLs), and the numbers printed in the tables
are compared with what `profan query ... --format csv` (or the matching
command) prints for the same run, cell by cell.
"""
import glob
import html.parser
import math
import os
import subprocess
import sys

import common
from common import ProfanTest, shared, local

RUN_SECTIONS = ["summary", "findings", "categories", "top-kernels", "steps",
                "timeline", "step-breakdown", "memory", "segments", "churn",
                "comm", "idle-breakdown", "queue-length", "critical-path",
                "roofline"]
# a run without a snapshot: no memory sections (only sections with data)
TRACE_SECTIONS = ["summary", "findings", "categories", "top-kernels",
                  "steps", "timeline", "step-breakdown", "comm",
                  "idle-breakdown", "queue-length", "critical-path",
                  "roofline"]
SNAPSHOT_SECTIONS = ["summary", "findings", "memory", "segments", "churn"]
DIFF_SECTIONS = ["metrics", "categories", "kernels", "memory"]
VOID = {"meta", "br", "img", "input", "link", "hr", "col", "wbr", "source"}


def _trim(z):
    if "." in z:
        z = z.rstrip("0").rstrip(".")
    return "0" if z == "-0" else z


def fmt_float(r):
    """The float rule of the table output (src/report/output.c), written again:
    up to 3 decimals, trailing zeros dropped; below 1 three significant
    digits in fixed notation; %g below 1e-9 and from 1e15."""
    a = abs(r)
    if (0 < a < 1e-9) or a >= 1e15:
        return ("%.6g" if a >= 1e15 else "%.3g") % r
    nd = 3
    if 0 < a < 1:
        nd = max(3, 2 - math.floor(math.log10(a)))
    return _trim("%.*f" % (nd, r))


def fmt_pct(r):
    a = abs(r)
    if 1e-9 <= a < 0.1:
        return _trim("%.*f" % (1 - math.floor(math.log10(a)), r))
    return "%.1f" % r


def fmt_ns(raw):
    """*_ns: 3 significant digits in ns, us, ms or s."""
    is_int = not any(c in raw for c in ".eE")
    v = float(raw)
    if is_int and abs(v) < 1000:
        return "%d ns" % int(raw)
    a, k = abs(v), 0
    units = ["ns", "us", "ms", "s"]
    while k < 3 and a >= 1000:
        a /= 1000
        k += 1
    while True:
        nd = 0 if a >= 100 else 1 if a >= 10 else 2
        x = round(a * 10 ** nd) / 10 ** nd
        if x >= 1000 and k < 3:
            a /= 1000
            k += 1
            continue
        if nd > 0 and x >= (100 if nd == 1 else 10):
            nd -= 1
        break
    if k == 0 and a == int(a):
        nd = 0
    z = "%s%.*f" % ("-" if v < 0 else "", nd, a)
    return "%s %s" % ("0" if z == "-0" else z, units[k])


def human_number(name, raw):
    """A number cell as the table output shows a column `name`."""
    low = name.lower()
    if raw in ("Inf", "-Inf", "NaN"):
        return raw
    is_int = not any(c in raw for c in ".eE")

    def unit(u):
        return low == u or low.endswith("_" + u)
    if unit("bytes"):
        return human_bytes(raw)
    if unit("ns"):
        return fmt_ns(raw)
    if unit("pct"):
        return fmt_pct(float(raw))
    if is_int:
        return raw
    return fmt_float(float(raw))


def human_bytes(v):
    """The byte formatting of the table output: 512 B, 1.5 KiB, ..."""
    v = float(v)
    if abs(v) < 1024:
        return "%.0f B" % v
    for unit in ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        v /= 1024
        if abs(v) < 1024 or unit == "EiB":
            return "%.1f %s" % (v, unit)


class Page(html.parser.HTMLParser):
    """The parts of a report page the tests look at."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.text = text
        self.doctype = None
        self.starts = []          # (tag, attrs dict) in document order
        self.title = ""
        self.page_titles = 0
        self.sections = []        # ids in order
        self.tables = {}          # section id -> [table]
        self.figures = {}         # section id -> [figure]
        self.notes = {}           # section id -> [note text]
        self.order = {}           # section id -> ['figure'|'table', ...]
        self.errors = []
        self._stack = []
        self._section = None
        self._table = None
        self._cell = None
        self._fig = None
        self._in_title = False
        self._svg_title = None
        self._note = None
        self.feed(text)
        self.close()

    def handle_decl(self, decl):
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.starts.append((tag, a))
        if tag not in VOID:
            self._stack.append(tag)
        if tag == "title" and "svg" not in self._stack[:-1]:
            self._in_title = True
            self.page_titles += 1
        if tag == "section":
            self._section = a.get("id")
            self.sections.append(self._section)
            for d in (self.tables, self.figures, self.notes, self.order):
                d[self._section] = []
        if tag == "figure":
            self._fig = {"id": a.get("id"), "svgs": [], "caption": "",
                         "texts": [], "rects": 0, "marks": 0}
            self._in_caption = False
        if tag == "figcaption":
            self._in_caption = True
        if tag == "svg" and self._fig is not None:
            self._fig["svgs"].append(a)
        if tag == "title" and "svg" in self._stack[:-1] and self._fig:
            self._svg_title = ""
        if tag == "text" and self._fig is not None:
            self._fig["texts"].append("")
        if tag == "rect" and self._fig is not None \
                and a.get("fill", "").startswith("url(#pf"):
            self._fig["rects"] += 1
        if tag == "table":
            self._table = {"caption": "", "head": [], "rows": [],
                           "raw": []}
        if tag == "tr" and self._table is not None:
            self._row, self._raw = [], []
        if tag in ("td", "th") and self._table is not None:
            self._cell = ""
            self._cell_tag = tag
            self._cell_raw = a.get("data-v")
        if tag == "caption":
            self._cell = ""
            self._cell_tag = "caption"
        if tag == "p" and a.get("class") == "note":
            self._note = ""

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self._stack or self._stack[-1] != tag:
            self.errors.append("unbalanced </%s> (open: %s)"
                               % (tag, self._stack[-3:]))
        else:
            self._stack.pop()
        if tag == "title":
            self._in_title = False
            if self._svg_title is not None and self._fig is not None:
                self._fig.setdefault("svg_title", self._svg_title)
            self._svg_title = None
        if tag == "figcaption":
            self._in_caption = False
        if tag == "figure" and self._fig is not None:
            self.figures[self._section].append(self._fig)
            self.order[self._section].append("figure")
            self._fig = None
        if tag in ("td", "th") and self._cell is not None \
                and self._table is not None:
            self._row.append(self._cell)
            self._raw.append(self._cell_raw)
            self._cell = None
        if tag == "caption" and self._cell is not None:
            self._table["caption"] = self._cell
            self._cell = None
        if tag == "tr" and self._table is not None:
            if self._cell_tag == "th" and not self._table["head"]:
                self._table["head"] = self._row
            else:
                self._table["rows"].append(self._row)
                self._table["raw"].append(self._raw)
        if tag == "table" and self._table is not None:
            self.tables[self._section].append(self._table)
            self.order[self._section].append("table")
            self._table = None
        if tag == "p" and self._note is not None:
            self.notes[self._section].append(self._note)
            self._note = None
        if tag == "section":
            self._section = None

    def handle_data(self, data):
        if self._in_title and self._svg_title is None:
            self.title += data
        if self._svg_title is not None:
            self._svg_title += data
        if self._cell is not None:
            self._cell += data
        if self._note is not None:
            self._note += data
        if self._fig is not None:
            if getattr(self, "_in_caption", False):
                self._fig["caption"] += data
            if self._stack and self._stack[-1] == "text":
                self._fig["texts"][-1] += data

    def table(self, section, caption=None, index=0):
        ts = [t for t in self.tables[section]
              if caption is None or t["caption"] == caption]
        return ts[index]


def csv_cells(rows, cols):
    return [[r[c] for c in cols] for r in rows]


class HtmlTest(ProfanTest):

    def render(self, *args, name="page.html"):
        path = os.path.join(self.tmp.name, name)
        r = self.profan(*args, "--html", path)
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(r.out, "")
        self.assertEqual(r.err, "profan: wrote %s (%d bytes)\n"
                         % (path, os.path.getsize(path)))
        self.assertFalse(os.path.exists(path + ".tmp"))
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return Page(text), text

    def assert_structure(self, page, text, sections):
        self.assertEqual(page.errors, [])
        self.assertTrue(text.startswith("<!DOCTYPE html>\n"))
        self.assertEqual(page.doctype, "DOCTYPE html")
        tags = [t for t, _ in page.starts]
        html_attrs = dict(page.starts)["html"]
        self.assertEqual(html_attrs.get("lang"), "en")
        metas = [a for t, a in page.starts if t == "meta"]
        self.assertIn({"charset": "utf-8"}, metas)
        self.assertTrue(any(a.get("name") == "viewport" for a in metas))
        self.assertTrue(page.title.startswith("profan "))
        self.assertEqual(page.page_titles, 1)
        # self-contained: no scripts, links, frames, fonts, URLs
        for bad in ("script", "link", "iframe", "img", "object", "embed"):
            self.assertNotIn(bad, tags)
        low = text.lower()
        for bad in ("http://", "https://", "@import", "@font-face",
                    "<script", "<link", "src=", "javascript:"):
            self.assertNotIn(bad, low)
        self.assertIn("prefers-color-scheme:dark", text)
        self.assertIn("@media print", text)
        self.assertEqual(page.sections, sections)
        ids = [a["id"] for _, a in page.starts if "id" in a]
        self.assertEqual(len(ids), len(set(ids)), "duplicate ids")
        for sec, figs in page.figures.items():
            for f in figs:
                self.assertEqual(len(f["svgs"]), 1, f["id"])
                svg = f["svgs"][0]
                self.assertEqual(svg.get("role"), "img")
                self.assertEqual(svg.get("aria-label"), f["caption"])
                self.assertEqual(f.get("svg_title"), f["caption"])
            # every chart is followed by a table
            order = page.order[sec]
            for i, kind in enumerate(order):
                if kind == "figure":
                    self.assertIn("table", order[i + 1:],
                                  "no table after a chart in " + sec)
            # a section has a chart/table or one note saying why not
            if not order:
                self.assertEqual(len(page.notes[sec]), 1, sec)

    def assert_table_equals(self, table, rows, cols=None):
        """The table's cells equal the CSV rows (data-v for byte cells)."""
        if cols is None:
            cols = list(rows[0].keys()) if rows else table["head"]
        self.assertEqual(table["head"], cols)
        got = [[raw if raw is not None else cell
                for cell, raw in zip(r, rr)]
               for r, rr in zip(table["rows"], table["raw"])]
        self.assertEqual(got, csv_cells(rows, cols))
        # byte cells print binary units of the raw value, bar cells the
        # share as a percentage, sparkline cells the series itself
        for r, rr in zip(table["rows"], table["raw"]):
            for name, cell, raw in zip(table["head"], r, rr):
                if raw is None:
                    continue
                if name.endswith("_bar"):
                    full = 100.0 if name.endswith("_pct_bar") else 1.0
                    v = min(max(float(raw) / full, 0.0), 1.0)
                    self.assertEqual(cell, "%.1f %%" % (100 * v), name)
                elif name.endswith("_spark"):
                    self.assertEqual(cell, raw, name)
                else:
                    self.assertEqual(cell, human_number(name, raw), name)


class RunReport(HtmlTest):

    def check_common_numbers(self, page):
        """Tables that every run with a trace has."""
        self.assert_table_equals(page.table("summary", "report-summary"),
                                 self.query("report-summary"))
        r = self.profan("--format", "csv", "report", "--section", "findings")
        self.assertEqual(r.rc, 0, r.err)
        fnd = page.table("findings")
        want = r.rows()
        self.assertEqual(len(fnd["rows"]), len(want))
        for row, w in zip(fnd["rows"], want):
            self.assertTrue(row[0].endswith(w["severity"]))
            self.assertEqual(row[1:], [w[k] for k in ("rule", "message",
                             "value", "threshold", "hint")])
        self.assert_table_equals(page.table("top-kernels", "top-kernels"),
                                 self.query("top-kernels", "--limit", "15"))
        # categories: whole-run shares = run-metrics cat_SCHEME:CAT_pct;
        # ms = category-breakdown summed over ranks
        for scheme, t in zip(("coarse", "detailed"),
                             page.tables["categories"]):
            met = {m["metric"]: float(m["value"]) for m in self.query(
                "run-metrics", "--param", "like=cat_%s:%%" % scheme)}
            br = self.query("category-breakdown", "--param",
                            "scheme=" + scheme)
            ms = {}
            for b in br:
                ms[b["category"]] = ms.get(b["category"], 0) + \
                    float(b["total_ms"])
            self.assertEqual(len(t["rows"]), len(met))
            for cat, count, total_ms, pct in t["rows"]:
                self.assertEqual(
                    pct, fmt_pct(met["cat_%s:%s_pct" % (scheme, cat)]))
                self.assertAlmostEqual(float(total_ms), ms[cat], delta=0.002
                                       * max(1, len(br)))

    def check_steps(self, page):
        self.assert_table_equals(page.table("steps", "rank-skew"),
                                 self.query("rank-skew"))
        steps = self.query("steps")
        self.assert_table_equals(page.table("steps", "steps"), steps)
        # the straggler bars are the rank-skew stragglers
        skew = self.query("rank-skew")
        bars = page.figures["steps"][0]
        marked = sorted(t for t in bars["texts"] if "straggler" in t)
        self.assertEqual(len(marked),
                         sum(1 for s in skew if s["straggler"] == "1"))
        for s in skew:
            if s["straggler"] == "1":
                self.assertTrue(any(t.startswith(s["step_ms"] + " ms")
                                    for t in marked), s)
        # step breakdown: the mean per step of each rank
        bd = self.query("step-breakdown")
        t = page.table("step-breakdown")
        cls = ["kernel", "memcpy", "memset", "comm", "runtime", "cpu",
               "idle"]
        self.assertEqual(t["head"], ["rank", "steps", "wall_ms"]
                         + [c + "_ms" for c in cls])
        ranks = sorted({b["rank"] for b in bd if b["step"] != ""}, key=int)
        self.assertEqual([r[0] for r in t["rows"]], ranks)
        for row in t["rows"]:
            mine = [b for b in bd if b["rank"] == row[0] and b["step"] != ""]
            self.assertEqual(int(row[1]), len(mine))
            for k, c in enumerate(["wall"] + cls):
                want = sum(float(b[c + "_ms"]) for b in mine) / len(mine)
                self.assertAlmostEqual(float(row[2 + k]), want, delta=6e-4)

    def check_timeline(self, page):
        steps = self.query("steps")
        low = min(int(s["rank"]) for s in steps)
        mine = sorted((float(s["dur_ms"]), int(s["step"])) for s in steps
                      if int(s["rank"]) == low)
        step = mine[(len(mine) - 1) // 2][1]
        cap = page.figures["timeline"][0]["caption"]
        self.assertTrue(cap.startswith("Rank %d, step %d (median step"
                                       " duration)" % (low, step)), cap)
        win = ("(SELECT ts AS t0, ts + dur AS t1 FROM step WHERE run_id ="
               " (SELECT max(id) FROM run) AND rank = %d AND step = %d)"
               % (low, step))
        want = self.sql(
            "SELECT device, stream, count(*) AS n FROM (SELECT device,"
            " stream, ts, dur FROM kernel WHERE rank = %d AND run_id ="
            " (SELECT max(id) FROM run) UNION ALL SELECT device, stream, ts,"
            " dur FROM gpu_mem_op WHERE rank = %d AND run_id = (SELECT"
            " max(id) FROM run)), %s w WHERE ts < w.t1 AND ts + dur > w.t0"
            " GROUP BY device, stream ORDER BY device, stream"
            % (low, low, win))
        t = page.table("timeline")
        self.assertEqual([r[:3] for r in t["rows"]],
                         [[w["device"], w["stream"], w["n"]] for w in want])
        total = sum(int(w["n"]) for w in want)
        rects = sum(int(r[4]) for r in t["rows"])
        self.assertIn("%d activities drawn as %d rectangles" % (total, rects),
                      cap)
        self.assertLessEqual(rects, total)
        # merged below a pixel: never more rectangles than pixels per lane
        for r in t["rows"]:
            self.assertLessEqual(int(r[4]), 802)
        legend = len(page.figures["timeline"][0]["texts"])
        self.assertGreater(legend, len(want))

    def test_sample_run(self):
        self.ingest_ok(local("sample-run"))
        before = self.db_bytes()
        page, text = self.render("report")
        self.assertEqual(self.db_bytes(), before)
        self.assert_structure(page, text, TRACE_SECTIONS)
        self.assertEqual(page.title, "profan report: run 1 (sample-run)")
        self.check_common_numbers(page)
        self.check_steps(page)
        self.check_timeline(page)
        # no snapshot: no memory sections, the summary says why
        self.assertIn("This run has no memory snapshot, allocation trace:"
                      " the sections that need them are left out.",
                      page.notes["summary"])
        # communication
        self.assert_table_equals(page.table("comm", "comm-overlap"),
                                 self.query("comm-overlap"))
        coll = self.query("collectives")
        self.assert_table_equals(page.table("comm", "collectives"), coll)
        self.check_collectives_per_op(page, coll)

    def check_collectives_per_op(self, page, coll):
        """The per-op chart's table: sums of the collectives query."""
        self.assertLess(len(coll), 200)              # the query's limit
        t = page.table("comm", "collectives per op")
        self.assertEqual(t["head"], ["op", "kernels", "total_ms",
                                     "total_bytes"])
        ops = {}
        for c in coll:
            o = ops.setdefault(c["op"], [0, 0.0])
            o[0] += int(c["count"])
            o[1] += float(c["total_ms"])
        self.assertEqual(sorted(r[0] for r in t["rows"]), sorted(ops))
        for op, n, ms, _ in t["rows"]:
            self.assertEqual(int(n), ops[op][0])
            self.assertAlmostEqual(float(ms), ops[op][1], delta=0.002)
        fig = [f for f in page.figures["comm"]
               if f["id"] == "chart-collectives"][0]
        self.assertEqual(fig["rects"], len(ops))

    def test_dlrm_8rank(self):
        self.ingest_ok(shared("runs", "dlrm-8rank"))
        page, text = self.render("report", "dlrm-8rank")
        self.assert_structure(page, text, TRACE_SECTIONS)
        self.assertLess(len(text.encode()), 1 << 20)
        self.check_common_numbers(page)
        self.check_steps(page)
        self.check_timeline(page)
        skew = self.query("rank-skew")
        self.assertIn("1", [s["straggler"] for s in skew])
        self.assertEqual(page.table("summary", "report-summary")["rows"][1],
                         ["ranks", "8"])
        self.assert_table_equals(page.table("comm", "comm-overlap"),
                                 self.query("comm-overlap"))
        self.check_collectives_per_op(page, self.query("collectives"))
        # the GPU line: each rank's trace lists the 8 GPUs of its host
        names = set()
        for path in glob.glob(os.path.join(shared("runs", "dlrm-8rank"), "*.json.gz")):
            props = common.load_json(path)["deviceProperties"]
            self.assertEqual(len(props), 8)
            names |= {d["name"] for d in props}
        self.assertEqual(len(names), 1)
        self.assertIn("%s (8 ranks, 8 visible per rank)" % names.pop(), text)

    def test_trace_and_snapshot(self):
        self.ingest_ok(shared("traces", "kineto-h100-2026-before.json"),
                       shared("snapshots", "cs336-fullstep-2025.pickle"))
        page, text = self.render("report")
        self.assert_structure(page, text, RUN_SECTIONS)
        self.check_common_numbers(page)
        tl = self.query("memory-timeline", "--param", "points=200")
        self.assert_table_equals(page.table("memory", "memory-timeline"),
                                 tl[:400])
        self.assert_table_equals(page.table("memory", "memory-summary"),
                                 self.query("memory-summary"))
        self.assert_table_equals(page.table("segments", "fragmentation"),
                                 self.query("fragmentation"))
        self.assert_table_equals(page.table("churn", "alloc-churn"),
                                 self.query("alloc-churn"))
        # the peak marker is the snapshot's peak allocated
        peak = [m for m in self.query("memory-summary")
                if m["section"] == "total"][0]["peak_allocated_bytes"]
        fig = page.figures["memory"][0]
        self.assertIn("peak " + human_bytes(peak), fig["texts"])
        # one cell per segment, each with its tooltip
        nseg = int(self.sql("SELECT count(*) AS n FROM segment")[0]["n"])
        seg = page.figures["segments"][0]
        self.assertIn("%d segments" % nseg, seg["caption"])
        self.assertEqual(text.count("<title>segment "), nseg)
        # allocation churn bars: one per alloc-churn row
        churn = self.query("alloc-churn")
        self.assertEqual(page.figures["churn"][0]["rects"], len(churn))

    def test_oom_marked(self):
        gen = os.path.join(self.tmp.name, "gen")
        os.mkdir(gen)
        subprocess.run([sys.executable, local("pickle", "gen.py"), gen],
                       check=True)
        self.ingest_ok(os.path.join(gen, "ring-buffer.pickle"))
        page, text = self.render("report")
        self.assert_structure(page, text, SNAPSHOT_SECTIONS)
        oom = [o for o in self.query("oom") if o["section"] == "oom"]
        self.assertEqual(len(oom), 1)
        fig = page.figures["memory"][0]
        self.assertIn("OOM (request %s)" % human_bytes(oom[0]["size_bytes"]),
                      fig["texts"])
        peak = [m for m in self.query("memory-summary")
                if m["section"] == "total"][0]["peak_allocated_bytes"]
        self.assertIn("peak " + human_bytes(peak), fig["texts"])
        # under 1 GiB the axis is in MiB
        self.assertIn("MiB", fig["texts"])
        self.assert_table_equals(page.table("memory", "memory-timeline"),
                                 self.query("memory-timeline", "--param",
                                            "points=200"))
        # no trace: no trace sections, the summary says why
        self.assertIn("This run has no GPU activity, steps, communication"
                      " kernels: the sections that need them are left out.",
                      page.notes["summary"])

    def test_escaping_and_errors(self):
        self.ingest_ok(local("sample-run"),
                       extra=("--name", "<script>alert('x')</script>",
                              "--tag", 'k="v"&<b>'))
        page, text = self.render("report")
        self.assertNotIn("<script", text)
        self.assertNotIn("<b>", text)
        self.assertIn("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;",
                      text)
        self.assertIn("k=&quot;v&quot;&amp;&lt;b&gt;", text)
        self.assertEqual(page.title,
                         "profan report: run 1 (<script>alert('x')</script>)")
        # stdout
        r = self.profan("report", "--html", "-")
        self.assertEqual(r.rc, 0, r.err)
        self.assertTrue(r.out.startswith("<!DOCTYPE html>\n"))
        self.assertTrue(r.out.endswith("</html>\n"))
        self.assertEqual(r.err, "")
        # unwritable path: clear error, nothing left behind
        bad = os.path.join(self.tmp.name, "missing", "r.html")
        r = self.profan("report", "--html", bad)
        self.assertEqual(r.rc, 2)
        self.assertEqual(r.err, "profan: cannot write %s: No such file or"
                         " directory\n" % bad)
        self.assertFalse(os.path.exists(os.path.dirname(bad)))
        # --step picks the timeline's step; an unknown step is a note
        page, _ = self.render("report", "--step", "12")
        cap = page.figures["timeline"][0]["caption"]
        self.assertTrue(cap.startswith("Rank 0, step 12: "), cap)
        out = os.path.join(self.tmp.name, "step.html")
        r = self.profan("report", "--step", "999", "--html", out)
        self.assertEqual(r.rc, 2)
        self.assertEqual(r.err, "profan: run 1 has no step 999 (rank 0 has"
                         " steps 10..13)\n")
        self.assertFalse(os.path.exists(out))
        r = self.profan("report", "--step", "3")
        self.assertEqual(r.rc, 2)
        self.assertIn("--step needs --html", r.err)


class DiffTrend(HtmlTest):

    def check_diff(self, a, b, memory):
        """Ingest a then b (lists of paths), render the diff page and
        compare it with `profan diff --by ... --format csv`."""
        self.ingest_ok(*a)
        self.ingest_ok(*b)
        page, text = self.render("diff", "1", "2")
        self.assert_structure(page, text, DIFF_SECTIONS)
        self.assertTrue(page.title.startswith("profan diff: run 1 ("))

        def by(what, *extra):
            r = self.profan("--format", "csv", "diff", "1", "2", "--by",
                            what, *extra)
            self.assertEqual(r.rc, 0, r.err)
            return r.rows()
        self.assert_table_equals(page.table("metrics"), by("metrics"))
        cats = by("category")
        self.assert_table_equals(page.table("categories"), cats)
        kern = by("kernel", "--limit", "30")
        self.assert_table_equals(page.table("kernels"), kern)
        # one pair of bars per category, speedup printed next to them
        fig = page.figures["categories"][0]
        self.assertEqual(fig["rects"], 2 * len(cats) + 2)   # + legend
        for c in cats:
            sp = float(c["speedup"])
            note = "%.2fx %s" % (sp if sp >= 1 else 1 / sp,
                                 "faster" if sp >= 1 else "slower")
            if sp == 1:
                note = "1.00x (same)"
            want = "B %s ms \u2014 %s" % (self.short(c["b_ms"]), note)
            self.assertIn(want, fig["texts"])
        # kernels: the first 15 rows as pairs; new / vanished named
        fig = page.figures["kernels"][0]
        self.assertEqual(fig["rects"], 2 * min(15, len(kern)) + 2)
        for k in kern[:15]:
            if k["status"] == "new":
                self.assertIn("B %s ms \u2014 new in B"
                              % self.short(k["b_ms"]), fig["texts"])
            if k["status"] == "vanished":
                self.assertIn("B 0 ms \u2014 gone in B", fig["texts"])
        mem = by("memory")
        if memory:
            self.assert_table_equals(page.table("memory"), mem)
            fig = page.figures["memory"][0]
            nbytes = [m for m in mem if m["metric"].endswith("_bytes")]
            self.assertGreater(len(nbytes), 0)
            self.assertEqual(fig["rects"], 2 * len(nbytes) + 2)
            for m in nbytes:
                self.assertIn("B %s GiB" % self.short(float(m["b"]) / 2**30)
                              + ("" if m["change_pct"] == "" else
                                 " \u2014 %+.2f %%" % float(m["change_pct"])),
                              fig["texts"])
        else:
            self.assertEqual(mem, [])
            self.assertEqual(page.notes["memory"],
                             ["no memory snapshot in either run"])
        return page

    @staticmethod
    def short(v):
        """html_fmt_short: 3 significant digits in fixed notation, whole
        numbers from 1000 up, %.3g only below 1e-9 or from 1e15."""
        v = float(v)
        a = abs(v)
        if v == 0:
            return "0"
        if a >= 1e15 or a < 1e-9:
            return "%.3g" % v
        if a >= 1000:
            return "%.0f" % v
        return _trim("%.*f" % (max(0, 2 - math.floor(math.log10(a))), v))

    def test_diff_kineto_h100(self):
        self.check_diff([shared("traces", "kineto-h100-2026-before.json")],
                        [shared("traces", "kineto-h100-2026-after.json")],
                        memory=False)
        r = self.profan("diff", "1", "2", "--by", "kernel", "--html", "x")
        self.assertEqual(r.rc, 2)
        self.assertIn("--html writes every section", r.err)

    def test_diff_hta_control_test(self):
        page = self.check_diff(
            [shared("traces", "hta-diff-control-a100-rank3.json.gz")],
            [shared("traces", "hta-diff-test-v100-rank1.json.gz")],
            memory=False)
        # this pair has new and vanished kernels and slower categories
        texts = page.figures["kernels"][0]["texts"]
        self.assertTrue(any(t.endswith("new in B") for t in texts))
        self.assertTrue(any(t.endswith("gone in B") for t in texts))

    def test_diff_memory(self):
        tr = shared("traces", "kineto-h100-2026-before.json")
        self.check_diff([tr, shared("snapshots",
                                    "cs336-fullstep-2025.pickle")],
                        [shared("traces", "kineto-h100-2026-after.json"),
                         shared("snapshots", "tomi-small.pickle")],
                        memory=True)

    def test_trend(self):
        runs = [local("sample-run"),
                shared("traces", "kineto-h100-2026-before.json"),
                shared("traces", "kineto-h100-2026-after.json"),
                shared("runs", "dlrm-8rank")]
        for p in runs:
            self.ingest_ok(p)
        metric = "gpu_ms"
        page, text = self.render("trend", metric)
        self.assert_structure(page, text, ["trend"])
        r = self.profan("--format", "csv", "trend", metric)
        self.assertEqual(r.rc, 0, r.err)
        want = r.rows()
        t = page.table("trend")
        self.assertEqual(t["head"], ["run_id", "name", "created_at", "value",
                                     "change_pct", "regression"])
        self.assertEqual([row[:3] for row in t["rows"]],
                         csv_cells(want, t["head"][:3]))
        # value and change_pct by the one rule per unit (README "One
        # format per unit"): up to 3 decimals, pct one decimal
        def other(v):
            d = 3 if abs(v) >= 1 or v == 0 else \
                2 - math.floor(math.log10(abs(v)))
            return ("%.*f" % (d, v)).rstrip("0").rstrip(".")
        self.assertEqual([row[3] for row in t["rows"]],
                         [other(float(w["value"])) for w in want])
        self.assertEqual([row[4] for row in t["rows"]],
                         ["%.1f" % float(w["change_pct"])
                          if w["change_pct"] else "" for w in want])
        # gpu_ms: higher is worse; regression = more than +5 %
        reg = ["regression" if w["change_pct"] and
               float(w["change_pct"]) > 5 else "" for w in want]
        self.assertEqual([row[5] for row in t["rows"]], reg)
        fig = page.figures["trend"][0]
        marks = [x for x in fig["texts"] if x.startswith("regression ")]
        self.assertEqual(len(marks), reg.count("regression"))
        self.assertGreater(reg.count("regression"), 0)
        # x ticks name the runs
        for w in want:
            self.assertIn("#" + w["run_id"], fig["texts"])
        r = self.profan("trend", "no_such_metric", "--html",
                        os.path.join(self.tmp.name, "t.html"))
        self.assertEqual(r.rc, 2)
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name,
                                                     "t.html")))
