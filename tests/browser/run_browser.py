#!/usr/bin/env python3
"""run_browser.py — the browser test of the HTML reports.

usage: run_browser.py PROFAN_BINARY [--shots DIR] [--timeout SECONDS]
                      [--only NAME] [--html FILE]... [--no-reports]

Builds a database from the fixtures with PROFAN_BINARY, writes the HTML
reports (`profan report RUN --html`, `profan diff A B --html`, `profan
trend METRIC --html`), and opens each one from a file:// URL in headless
Chromium (tests/browser/cdp.py, page_check.py) in the light and the dark
colour scheme.  A report fails on any console error or warning, uncaught
exception or network request (other than the page itself and data:
URLs), a horizontal overflow, an <svg> without area, chart labels cut
off at their <svg>'s edge or drawn over each other, a missing section, a
dark scheme that does not darken the page, or a screenshot that is
nearly blank.  Screenshots are saved as NAME-light.png / NAME-dark.png
under --shots (default: browser-shots/ next to the binary), with
summary.txt describing each one.

Before the reports, the checker proves it can fail: tests/browser/pages/
bad.html must show each kind of problem, blank.html a blank screenshot,
and good.html nothing.  --html FILE checks that file too (named after
it); --no-reports checks only the self-test pages and those files.
Exit status 0 when everything passed, 1 otherwise.  Real-world fixtures in ../shared/fixtures are
required under CI=true; elsewhere their reports are skipped with a
message when the folder is missing.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "fixtures"))
sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, HERE)

import cdp          # noqa: E402
import page_check   # noqa: E402

# Section ids of each page (src/report/report_html.h) and those that must hold
# a chart for the fixture used here.
RUN_IDS = ["summary", "findings", "categories", "top-kernels", "steps",
           "timeline", "step-breakdown", "memory", "segments", "churn",
           "comm"]
# Only sections with data: a run without a snapshot, a snapshot-only run.
TRACE_IDS = ["summary", "findings", "categories", "top-kernels", "steps",
             "timeline", "step-breakdown", "comm"]
SNAPSHOT_IDS = ["summary", "findings", "memory", "segments", "churn"]
DIFF_IDS = ["metrics", "categories", "kernels", "memory"]
TREND_IDS = ["trend"]

# Problems bad.html must show (substrings), one per kind of check.
BAD_PAGE_EXPECT = [
    "network request: https://example.invalid/",
    "network request: file://",
    "console.error: boom 42",
    "console.warning: careful",
    "uncaught exception: ReferenceError",
    "horizontal overflow",
    "svg with an empty bounding box: emptysvg",
    "chart labels drawn outside their <svg> (cut off), first: right edge: "
    "label cut off",
    "pairs of chart labels drawn over each other, first: 'first label' "
    "over 'second label'",
    "no element with id=missing",
    "findings in a scroll box",
    "two chart styles share one colour: pf0 and pf1",
    "top-kernels bars with the same label: kernel_a",
]


class Report:
    """One page to check: name, the profan arguments that write it to
    FILE (None: an existing file at `path`), expected ids."""

    def __init__(self, name, argv, ids=(), svg_ids=(), path=None):
        self.name, self.argv, self.path = name, argv, path
        self.ids, self.svg_ids = list(ids), list(svg_ids)


def shared(*parts):
    """Path of a real-world fixture, or None (with a message) when it is
    missing outside CI; missing under CI=true is fatal."""
    path = os.path.join(SHARED, *parts)
    if os.path.exists(path):
        return path
    if os.environ.get("CI") == "true":
        sys.exit("browser: fixture missing under CI: " + path)
    print("browser: skipped, fixture not found: " + path)
    return None


def profan(binary, db, *args):
    """Runs profan; exits with its stderr when it fails."""
    cmd = [binary, "--db", db] + [str(a) for a in args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                       stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        sys.exit("browser: %s failed (%d): %s"
                 % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return p.stdout


def build_database(binary, db):
    """Ingests the fixtures as runs sample, dlrm, h100-mem (trace and
    memory snapshot), before and after; returns the names ingested."""
    runs = [("sample", [os.path.join(ROOT, "fixtures", "sample-run")])]
    wanted = [
        ("dlrm", [("runs", "dlrm-8rank")]),
        ("h100-mem", [("traces", "kineto-h100-2026-after.json"),
                      ("snapshots", "cs336-fullstep-2025.pickle")]),
        ("before", [("traces", "kineto-h100-2026-before.json")]),
        ("after", [("traces", "kineto-h100-2026-after.json")]),
        ("snap", [("snapshots", "tomi-small.pickle")]),
        ("a100", [("traces", "hta-diff-control-a100-rank3.json.gz")]),
    ]
    for name, parts in wanted:
        paths = [shared(*p) for p in parts]
        if None not in paths:
            runs.append((name, paths))
    for name, paths in runs:
        profan(binary, db, "ingest", "--quiet", "--name", name, *paths)
    return [name for name, _ in runs]


def reports_for(names):
    """The pages to check for the runs ingested."""
    def ids(n):
        return RUN_IDS if n == "h100-mem" else \
            SNAPSHOT_IDS if n == "snap" else TRACE_IDS

    # the roofline chart (issue 21) on the runs whose GPUs have a spec
    # and whose ops have shapes: sample (H100), dlrm (V100), a100
    def svg_ids(n):
        return ["memory"] if n == "snap" else \
            ["categories", "top-kernels"] + \
            (["memory"] if n == "h100-mem" else []) + \
            (["roofline"] if n in ("sample", "dlrm", "a100") else [])
    out = [Report("report-" + n, ["report", n], ids(n), svg_ids(n))
           for n in names]
    if "before" in names and "after" in names:
        out.append(Report("diff-before-after", ["diff", "before", "after"],
                          DIFF_IDS, ["categories"]))
    if "dlrm" in names:
        out.append(Report("diff-sample-dlrm", ["diff", "sample", "dlrm"],
                          DIFF_IDS, ["categories"]))
    out.append(Report("trend-step-time",
                      ["trend", "step_time_median_ms"], TREND_IDS, ["trend"]))
    return out


def html_supported(binary):
    """True when `profan report --help` mentions --html."""
    p = subprocess.run([binary, "report", "--help"], capture_output=True,
                       text=True, timeout=60)
    return "--html" in p.stdout + p.stderr


def describe(res):
    """Lines describing a checked page: layout and screenshot stats."""
    lines = []
    for scheme in ("light", "dark"):
        if scheme not in res.shots:
            continue
        st, lay = res.shots[scheme], res.layout[scheme]
        lines.append(
            "  %-5s %s: %dx%d px, %d colours, background %s, %.1f %% "
            "non-background; page %d px tall, %d sections, %d svg, "
            "%d tables, %d chars of text"
            % (scheme, os.path.basename(res.paths[scheme]), st["width"],
               st["height"], st["colours"], st["background"],
               100 * st["foreground_share"], lay["scrollHeight"],
               lay["sections"], lay["svgs"], lay["tables"],
               lay["textLength"]))
    return lines


def self_test(browser, shots, timeout):
    """The checker must flag every problem of pages/bad.html and none of
    pages/good.html; returns a list of failures."""
    fails = []
    pages = os.path.join(HERE, "pages")
    bad = page_check.check_page(
        browser, os.path.join(pages, "bad.html"), "selftest-bad", shots,
        ids=["missing"], timeout=timeout)
    text = "\n".join(bad.problems)
    if not any(p.startswith("dark: the dark colour scheme does not darken")
               for p in bad.problems):
        fails.append("self-test: bad.html (no dark CSS) not flagged for "
                     "its dark scheme; got:\n" + text)
    for want in BAD_PAGE_EXPECT:
        for scheme in ("light", "dark"):
            if not any(p.startswith(scheme + ": ") and want in p
                       for p in bad.problems):
                fails.append("self-test: bad.html (%s) not flagged for %r;"
                             " got:\n%s" % (scheme, want, text))
    blank = page_check.check_page(
        browser, os.path.join(pages, "blank.html"), "selftest-blank", shots,
        timeout=timeout)
    for want in ("screenshot nearly blank", "almost no text"):
        if not any(want in p for p in blank.problems):
            fails.append("self-test: blank.html not flagged for %r" % want)
    good = page_check.check_page(
        browser, os.path.join(pages, "good.html"), "selftest-good", shots,
        ids=["chart"], svg_ids=["chart"], timeout=timeout)
    fails += ["self-test: good.html flagged: " + p for p in good.problems]
    return fails


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--shots", help="screenshot directory")
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="seconds per page and colour scheme")
    ap.add_argument("--only", help="check only reports whose name has this")
    ap.add_argument("--html", action="append", default=[],
                    help="also check this HTML file")
    ap.add_argument("--no-reports", action="store_true",
                    help="only the self-test and the --html files")
    return ap.parse_args()


def render_all(binary, tmp, only):
    """Builds the database and writes every report; returns Reports."""
    if not html_supported(binary):
        sys.exit("browser: %s report --help does not offer --html" % binary)
    db = os.path.join(tmp, "browser.db")
    todo = reports_for(build_database(binary, db))
    todo = [r for r in todo if not only or only in r.name]
    for r in todo:
        r.path = os.path.join(tmp, r.name + ".html")
        profan(binary, db, *r.argv, "--html", r.path)
    return todo


def main():
    args = parse_args()
    binary = os.path.abspath(args.binary)
    shots = args.shots or os.path.join(os.path.dirname(binary),
                                       "browser-shots")
    os.makedirs(shots, exist_ok=True)
    chromium = cdp.find_chromium()
    if not chromium:
        sys.exit("browser: chromium not found (install it with "
                 "PROFAN_SETUP_EXTRA=chromium sh scripts/setup.sh)")
    fails, summary = [], []
    with tempfile.TemporaryDirectory(prefix="profan-browser-") as tmp:
        todo = [Report(os.path.splitext(os.path.basename(h))[0], None,
                       path=os.path.abspath(h)) for h in args.html]
        if not args.no_reports:
            todo += render_all(binary, tmp, args.only)
        with cdp.Browser(chromium, log_path=os.path.join(
                shots, "chromium.log")) as browser:
            fails += self_test(browser, shots, args.timeout)
            for r in todo:
                res = page_check.check_page(browser, r.path, r.name, shots,
                                            r.ids, r.svg_ids, args.timeout)
                size = os.path.getsize(r.path)
                status = "FAIL" if res.problems else "ok"
                summary.append("%s %s (%d bytes)" % (status, r.name, size))
                summary += describe(res)
                fails += ["%s: %s" % (r.name, p) for p in res.problems]
    with open(os.path.join(shots, "summary.txt"), "w") as f:
        f.write("\n".join(summary) + "\n")
    print("\n".join(summary))
    for line in fails:
        print("FAIL " + line)
    print("browser: %d pages, %d problems; screenshots in %s"
          % (len(todo), len(fails), shots))
    return 1 if fails else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cdp.CDPError as e:
        sys.exit("browser: %s" % e)
