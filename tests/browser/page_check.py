"""page_check.py — open one HTML file in headless Chromium and check it.

Part of the browser test (tests/browser/run_browser.py).  check_page()
opens a file:// URL in a new page of a cdp.Browser with the Runtime, Log,
Network and Page domains enabled, once per colour scheme (light, dark),
and returns a PageResult: the problems found (console errors and
warnings, uncaught exceptions, network requests, a broken layout, a blank
screenshot) and what was measured.  Screenshots are saved as
NAME-light.png and NAME-dark.png.

A request is allowed only for the page's own URL and for data: URLs
(inline content: it cannot leave the file).  Anything else — http(s),
other file:// paths, blob:, ws: — is a failure.
"""
import base64
import json
import os
import pathlib
import time

import cdp
import pngstat

# Blankness thresholds for a screenshot: at least this many distinct
# colours, and at least this share of pixels not of the background colour.
MIN_COLOURS = 8
MIN_FOREGROUND_SHARE = 0.01
# Pages taller than this (CSS px) are captured only down to it.
MAX_SHOT_HEIGHT = 12000
# Horizontal overflow tolerated before the layout counts as broken.
OVERFLOW_SLACK_PX = 4

# Runs in the page after load; returns the layout facts as JSON text.
LAYOUT_JS = r"""
(() => {
  // An <svg> holding only <defs> (shared fill patterns) draws nothing
  // and may have no size; every other one must have an area.
  const defsOnly = s => Array.from(s.children).every(
      c => ['defs', 'style', 'title', 'desc'].includes(c.localName));
  const svgs = Array.from(document.querySelectorAll('svg'));
  const empty = svgs.filter(s => !defsOnly(s)).filter(s => {
    const r = s.getBoundingClientRect();
    return !(r.width > 0 && r.height > 0);
  }).map(s => (s.id || s.getAttribute('aria-label') ||
               s.outerHTML.slice(0, 80)));
  // Text of a chart drawn past its <svg>'s box is cut off on screen.
  const clipped = [];
  for (const s of svgs.filter(s => !defsOnly(s))) {
    const b = s.getBoundingClientRect();
    for (const t of s.querySelectorAll('text')) {
      const r = t.getBoundingClientRect();
      const side = r.right > b.right + 1 ? 'right' :
                   r.left < b.left - 1 ? 'left' :
                   r.bottom > b.bottom + 1 ? 'bottom' :
                   r.top < b.top - 1 ? 'top' : '';
      if (r.width > 0 && side)
        clipped.push(side + ' edge: ' + t.textContent.slice(0, 60));
    }
  }
  // Two labels of one chart drawn over each other (more than 2 px both
  // ways) are unreadable; the same text twice at the same place (a
  // halo) does not count.
  const overlaps = [];
  for (const s of svgs.filter(s => !defsOnly(s))) {
    const ts = Array.from(s.querySelectorAll('text'))
      .map(t => [t.textContent, t.getBoundingClientRect()])
      .filter(([_, r]) => r.width > 0 && r.height > 0);
    for (let i = 0; i < ts.length; i++)
      for (let j = i + 1; j < ts.length; j++) {
        const [a, ra] = ts[i], [b, rb] = ts[j];
        const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
        const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
        const halo = a === b && Math.abs(ra.left - rb.left) < 2 &&
                     Math.abs(ra.top - rb.top) < 2;
        if (w > 2 && h > 2 && !halo)
          overlaps.push(a.slice(0, 40) + "' over '" + b.slice(0, 40));
      }
  }
  // The findings are shown whole: their table is never in a scroll box.
  const fnd = document.querySelector('#findings .tables');
  const findingsHidden = fnd ? Math.max(0, fnd.scrollHeight -
                                         fnd.clientHeight) : 0;
  // One colour per category: the fill patterns pfN (one per style) must
  // have distinct colours, else two categories look alike.
  const styleColour = {};
  for (const pat of document.querySelectorAll('pattern[id^="pf"]')) {
    const r = pat.querySelector('rect');
    if (r) styleColour[pat.id] = getComputedStyle(r).fill;
  }
  const sameColour = [];
  const pids = Object.keys(styleColour).sort();
  for (let i = 0; i < pids.length; i++)
    for (let j = i + 1; j < pids.length; j++)
      if (styleColour[pids[i]] === styleColour[pids[j]])
        sameColour.push(pids[i] + ' and ' + pids[j] + ' ' +
                        styleColour[pids[i]]);
  // Bar labels tell the kernels apart: no two rows of the top-kernels
  // chart read the same.
  const dupLabels = [];
  const tk = document.getElementById('chart-top-kernels');
  if (tk) {
    const seen = {};
    for (const g of tk.querySelectorAll('g')) {
      const t = g.querySelector('text[text-anchor="end"]');
      if (!t) continue;
      if (seen[t.textContent]) dupLabels.push(t.textContent);
      seen[t.textContent] = 1;
    }
  }
  const sections = document.querySelectorAll('section').length;
  const h2 = document.querySelectorAll('h2').length;
  const ids = {};
  for (const id of EXPECT_IDS) {
    const e = document.getElementById(id);
    if (!e) { ids[id] = null; continue; }
    const r = e.getBoundingClientRect();
    ids[id] = {height: r.height, svgs: e.querySelectorAll('svg').length};
  }
  return JSON.stringify({
    title: document.title, ids: ids,
    scrollWidth: document.documentElement.scrollWidth,
    bodyScrollWidth: document.body ? document.body.scrollWidth : 0,
    innerWidth: window.innerWidth,
    scrollHeight: document.documentElement.scrollHeight,
    svgs: svgs.length, emptySvgs: empty, clippedText: clipped,
    overlappingText: overlaps,
    findingsHidden: findingsHidden, sameColour: sameColour,
    dupLabels: dupLabels,
    sections: sections, h2: h2,
    tables: document.querySelectorAll('table').length,
    textLength: (document.body ? document.body.innerText : '').length,
    scheme: matchMedia('(prefers-color-scheme: dark)').matches ?
            'dark' : 'light',
    background: getComputedStyle(document.body).backgroundColor,
  });
})()
"""


class PageResult:
    """Outcome of check_page(): problems (list of one-line strings, empty
    when the page passed), layout facts per scheme, screenshot stats per
    scheme and the screenshot paths."""

    def __init__(self, name):
        self.name = name
        self.problems = []
        self.layout = {}
        self.shots = {}
        self.paths = {}


def _event_problems(events, session, url):
    """One-line problems for the console messages, exceptions and
    requests among events of `session`."""
    out = []
    for s, method, p in events:
        if s != session:
            continue
        if method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            desc = d.get("exception", {}).get("description") or d.get("text")
            out.append("uncaught exception: %s (line %s)"
                       % (desc, d.get("lineNumber")))
        elif method == "Runtime.consoleAPICalled":
            if p.get("type") in ("error", "warning", "assert"):
                text = " ".join(str(a.get("value", a.get("description", "")))
                                for a in p.get("args", []))
                out.append("console.%s: %s" % (p["type"], text))
        elif method == "Log.entryAdded":
            e = p.get("entry", {})
            if e.get("level") in ("error", "warning"):
                out.append("log %s (%s): %s %s" % (
                    e.get("level"), e.get("source"), e.get("text"),
                    e.get("url", "")))
        elif method == "Network.requestWillBeSent":
            req = p.get("request", {}).get("url", "")
            if req != url and not req.startswith("data:"):
                out.append("network request: %s" % req)
        elif method == "Network.loadingFailed":
            out.append("loading failed: %s" % p.get("errorText"))
    return out


def _evaluate(browser, session, expr, timeout):
    """Value of JavaScript expression expr in the page."""
    r = browser.send("Runtime.evaluate",
                     {"expression": expr, "returnByValue": True},
                     session=session, timeout=timeout)
    if "exceptionDetails" in r:
        raise cdp.CDPError("evaluate: %s" % r["exceptionDetails"])
    return r["result"].get("value")


def _layout_problems(lay, svg_ids):
    """One-line problems for the layout facts from LAYOUT_JS; svg_ids
    are element ids that must hold at least one <svg>."""
    out = []
    for id_, box in sorted(lay["ids"].items()):
        if box is None:
            out.append("no element with id=%s" % id_)
        elif box["height"] <= 0:
            out.append("element id=%s has zero height" % id_)
        elif id_ in svg_ids and box["svgs"] == 0:
            out.append("element id=%s holds no chart (<svg>)" % id_)
    limit = lay["innerWidth"] + OVERFLOW_SLACK_PX
    if lay["scrollWidth"] > limit or lay["bodyScrollWidth"] > limit:
        out.append("horizontal overflow: scrollWidth %d > window %d"
                   % (max(lay["scrollWidth"], lay["bodyScrollWidth"]),
                      lay["innerWidth"]))
    for svg in lay["emptySvgs"]:
        out.append("svg with an empty bounding box: %s" % svg)
    if lay["clippedText"]:
        out.append("%d chart labels drawn outside their <svg> (cut off), "
                   "first: %s" % (len(lay["clippedText"]),
                                  lay["clippedText"][0]))
    if lay["overlappingText"]:
        out.append("%d pairs of chart labels drawn over each other, "
                   "first: '%s'" % (len(lay["overlappingText"]),
                                    lay["overlappingText"][0]))
    if lay.get("findingsHidden", 0) > 1:
        out.append("findings in a scroll box: %d px hidden"
                   % lay["findingsHidden"])
    for same in lay.get("sameColour", []):
        out.append("two chart styles share one colour: %s" % same)
    if lay.get("dupLabels"):
        out.append("top-kernels bars with the same label: %s"
                   % lay["dupLabels"][0])
    if lay["sections"] + lay["h2"] == 0:
        out.append("no <section> or <h2>: nothing rendered?")
    if lay["textLength"] < 20:
        out.append("almost no text (%d characters)" % lay["textLength"])
    return out


def _screenshot(browser, session, timeout):
    """Full-page PNG (up to MAX_SHOT_HEIGHT CSS px) as bytes."""
    m = browser.send("Page.getLayoutMetrics", session=session,
                     timeout=timeout)
    size = m.get("cssContentSize") or m["contentSize"]
    clip = {"x": 0, "y": 0, "width": size["width"],
            "height": min(size["height"], MAX_SHOT_HEIGHT), "scale": 1}
    r = browser.send("Page.captureScreenshot",
                     {"format": "png", "optimizeForSpeed": True,
                      "captureBeyondViewport": True,
                      "clip": clip}, session=session, timeout=timeout)
    return base64.b64decode(r["data"])


def _shot_problems(st):
    """One-line problems when screenshot stats st look blank."""
    out = []
    if st["colours"] < MIN_COLOURS:
        out.append("screenshot nearly blank: %d colours (< %d)"
                   % (st["colours"], MIN_COLOURS))
    if st["foreground_share"] < MIN_FOREGROUND_SHARE:
        out.append("screenshot nearly blank: %.2f %% non-background pixels "
                   "(< %.2f %%)" % (100 * st["foreground_share"],
                                    100 * MIN_FOREGROUND_SHARE))
    return out


def _left(deadline):
    """Seconds left before deadline; CDPError when none."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise cdp.CDPError("page timed out")
    return left


def _open_once(browser, session, path, scheme, deadline):
    """Opens path in the page of `session` with colour scheme `scheme`;
    returns (url, index of the page's first event)."""
    url = pathlib.Path(os.path.abspath(path)).as_uri()
    start = len(browser.events)
    for domain in ("Runtime", "Log", "Network", "Page"):
        browser.send(domain + ".enable", session=session,
                     timeout=_left(deadline))
    browser.send("Emulation.setEmulatedMedia",
                 {"features": [{"name": "prefers-color-scheme",
                                "value": scheme}]},
                 session=session, timeout=_left(deadline))
    browser.send("Page.navigate", {"url": url}, session=session,
                 timeout=_left(deadline))
    browser.wait_event("Page.loadEventFired", session=session,
                       timeout=_left(deadline), start=start)
    return url, start


def _check_scheme(browser, path, name, shot_dir, scheme, res, deadline,
                  ids, svg_ids):
    """Opens path once in colour scheme `scheme` and adds what it finds
    to PageResult res; ids and svg_ids as for check_page().  CDPError on
    a timeout or a dead browser."""
    js = LAYOUT_JS.replace("EXPECT_IDS", json.dumps(sorted(ids)))
    target, session = browser.new_page(timeout=_left(deadline))
    try:
        url, start = _open_once(browser, session, path, scheme, deadline)
        browser.drain(min(0.3, _left(deadline)))
        lay = json.loads(_evaluate(browser, session, js,
                                   _left(deadline)))
        png = _screenshot(browser, session, _left(deadline))
    finally:
        browser.send("Target.closeTarget", {"targetId": target},
                     timeout=max(1.0, deadline - time.monotonic()))
    res.layout[scheme] = lay
    shot = os.path.join(shot_dir, "%s-%s.png" % (name, scheme))
    with open(shot, "wb") as f:
        f.write(png)
    res.paths[scheme] = shot
    st = pngstat.stats(png)
    res.shots[scheme] = st
    probs = _event_problems(browser.events[start:], session, url)
    probs += _layout_problems(lay, svg_ids)
    probs += _shot_problems(st)
    if lay["scheme"] != scheme:
        probs.append("prefers-color-scheme emulation did not apply")
    res.problems += ["%s: %s" % (scheme, p) for p in probs]


def check_page(browser, path, name, shot_dir, ids=(), svg_ids=(),
               timeout=30.0):
    """Checks the HTML file at path in the light and the dark colour
    scheme, at most `timeout` seconds each; screenshots go to shot_dir.
    Elements with the ids in `ids` must exist with a nonzero height, and
    those in svg_ids must also hold an <svg>.  Returns a PageResult
    (problems empty when it passed)."""
    ids = set(ids) | set(svg_ids)
    res = PageResult(name)
    for scheme in ("light", "dark"):
        deadline = time.monotonic() + timeout
        try:
            _check_scheme(browser, path, name, shot_dir, scheme, res,
                          deadline, ids, svg_ids)
        except cdp.CDPError as e:
            res.problems.append("%s: %s" % (scheme, e))
    if "light" in res.shots and "dark" in res.shots:
        light = _luminance(res.shots["light"]["background"])
        dark = _luminance(res.shots["dark"]["background"])
        if dark >= light:
            res.problems.append(
                "dark: the dark colour scheme does not darken the page "
                "(background %s, light %s)" % (res.shots["dark"]["background"],
                                               res.shots["light"]["background"]))
    return res


def _luminance(hex_colour):
    """Relative luminance 0..1 of '#rrggbb' (sRGB weights, no gamma)."""
    r, g, b = (int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b
