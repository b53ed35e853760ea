#!/usr/bin/env python3
"""run_all.py — runs every tests/e2e/test_*.py module against a profan binary.

usage: run_all.py [PROFAN_BINARY] [-k PATTERN]... [-x MODULE]... [-j JOBS]
                  [-t SECONDS]

-x MODULE leaves out a whole module (scripts/test.sh: the scenario
matrices, run once in the fast lane, not again under the sanitizers).

-j JOBS (default: $PROFAN_E2E_JOBS, else 1) runs the modules in JOBS
processes at once, one module per process, the slowest known modules
first; each module's report is printed whole when it ends, with its
wall and CPU time.  Tests of one
module never run at the same time as each other.

-t SECONDS (default: $PROFAN_E2E_MODULE_TIMEOUT, else none) is each
module's safety net against a hang: a module still running after SECONDS
of wall time is killed with every process it started and fails as one
error naming it, its time and the output it had printed ("e2e: TIMEOUT
test_x after N s"); the other modules still run.  It runs every module
in a process of its own, as -j does, even with -j 1.  scripts/test.sh
sizes it for a sanitizer build on a loaded machine, never as a speed
limit.

Prints unittest's report, the wall and CPU time of each module (most
CPU first, one line each: "e2e: time 123.4 s, cpu 98.7 s (own 12.3 s)
test_x (N tests)"; CPU counts the test process and every profan or
Python process it waited for, so it does not depend on the machine's
load the way wall time does; "own" is the test process's share alone,
its Python, as against the programs it ran: scripts/test.sh's ASan lane
leaves out modules whose CPU is mostly their own) and of the ten
costliest tests, then every skip with its
reason, then a closing line "e2e: N passed, N failed, N skipped"
(scripts/test.sh parses it).

A run fails (exit 1) on any failure or error, on an unexpected success of
an @expectedFailure test, when nothing ran, and under CI=true also on a
test kept as an expected failure (a known bug is a red run in CI) and on
any skip the test did not declare with common.env_unable() (a fixture
missing, a fuzz/regress folder empty ... must not turn green silently).
"""
import faulthandler
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from concurrent.futures import ThreadPoolExecutor, as_completed

HERE = os.path.dirname(os.path.abspath(__file__))


# Modules known to take longest (measured by this runner's time lines),
# started first when running in parallel; the rest follow by name.
SLOW_FIRST = ("test_export", "test_gate", "test_hostile_inputs",
              "test_verdicts", "test_durability", "test_bad_traces",
              "test_history", "test_html", "test_trace", "test_hta",
              "test_report")


def parse_args(args):
    """-k may be given several times: a test runs when any pattern matches
    (unittest's own -k rule).  An unknown argument is a usage error."""
    opts = {"pattern": [], "exclude": [], "jobs": None, "module": None,
            "result": None, "timeout": None}
    if args and not args[0].startswith("-"):
        os.environ["PROFAN_BIN"] = os.path.abspath(args.pop(0))
    while args:
        key = {"-k": "pattern", "-x": "exclude", "-j": "jobs",
               "-t": "timeout", "--module": "module",
               "--result": "result"}.get(args[0])
        if key is None or len(args) < 2:
            sys.stderr.write("run_all.py: bad argument %r\n%s\n"
                             % (args[0], __doc__.split("\n\n")[1]))
            sys.exit(2)
        if key in ("pattern", "exclude"):
            opts[key].append(args[1])
        else:
            opts[key] = args[1]
        del args[:2]
    if opts["jobs"] is None:
        opts["jobs"] = os.environ.get("PROFAN_E2E_JOBS", "1")
    opts["jobs"] = max(1, int(opts["jobs"]))
    if opts["timeout"] is None:
        opts["timeout"] = os.environ.get("PROFAN_E2E_MODULE_TIMEOUT") or None
    if opts["timeout"] is not None:
        try:
            opts["timeout"] = float(opts["timeout"])
        except ValueError:
            opts["timeout"] = 0
        if not opts["timeout"] > 0:
            sys.stderr.write("run_all.py: -t SECONDS: a number above 0\n")
            sys.exit(2)
    return opts


def name_patterns(opts):
    """unittest's testNamePatterns for the -k patterns (None: all)."""
    return ["*%s*" % k for k in opts["pattern"]] or None


def main():
    opts = parse_args(sys.argv[1:])
    sys.path.insert(0, HERE)
    import common                     # after PROFAN_BIN is set
    ci = os.environ.get("CI") == "true"
    if opts["module"]:
        return run_worker(opts)
    if opts["jobs"] > 1 or opts["timeout"]:
        result = run_parallel(opts)
    else:
        loader = unittest.TestLoader()
        loader.testNamePatterns = name_patterns(opts)
        suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
        suite = unittest.TestSuite(t for t in suite
                                   if not excluded(t, opts["exclude"]))
        runner = unittest.TextTestRunner(verbosity=1,
                                         resultclass=TimedResult)
        result = runner.run(suite)
    print_times(result)
    return summarize(result, ci, common.ENV_UNABLE)


def excluded(suite, modules):
    """True for a discovered module's suite that -x names."""
    return any(type(t).__module__ in modules for t in iter_tests(suite))


def iter_tests(suite):
    """The tests of a (nested) suite."""
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from iter_tests(t)
        else:
            yield t


class Done:
    """A finished test as summarize() sees it: only its id."""

    def __init__(self, tid):
        self.tid = tid

    def id(self):
        return self.tid


def run_worker(opts):
    """Run one module; write what summarize/print_times need as JSON."""
    # run_module's timeout: SIGUSR1 prints every thread's stack (which
    # test hung, where) before the module is killed
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    loader = unittest.TestLoader()
    loader.testNamePatterns = name_patterns(opts)
    suite = loader.loadTestsFromName(opts["module"])
    result = unittest.TextTestRunner(verbosity=1, stream=sys.stdout,
                                     resultclass=TimedResult).run(suite)
    ids = lambda pairs: [[t.id(), str(x)] for t, x in pairs]
    with open(opts["result"], "w") as fh:
        json.dump({"run": result.testsRun,
                   "failures": ids(result.failures),
                   "errors": ids(result.errors),
                   "skipped": ids(result.skipped),
                   "expected": ids(result.expectedFailures),
                   "unexpected": [t.id() for t in result.unexpectedSuccesses],
                   "span": result.module_span,
                   "times": result.test_times,
                   "cpu": cpu_seconds(),
                   "own": own_cpu_seconds()}, fh)
    return 0


def run_parallel(opts):
    """Every module in its own process, opts["jobs"] at a time."""
    mods = sorted(f[:-3] for f in os.listdir(HERE)
                  if f.startswith("test_") and f.endswith(".py")
                  and f[:-3] not in opts["exclude"])
    if opts["pattern"]:
        # only the modules with a test -k selects (one import each here,
        # not a process each: -k test_docs runs one module)
        loader = unittest.TestLoader()
        loader.testNamePatterns = name_patterns(opts)
        mods = [m for m in mods if selects(loader, m)]
    mods.sort(key=lambda m: (SLOW_FIRST.index(m) if m in SLOW_FIRST
                             else len(SLOW_FIRST)))
    tmp = tempfile.mkdtemp(prefix="run_all-")
    agg = unittest.TestResult()
    agg.module_span, agg.test_times, agg.module_cpu = {}, [], {}
    agg.module_own = {}
    t0 = time.monotonic()

    def one(mod):
        out = os.path.join(tmp, mod + ".json")
        cmd = [sys.executable, "-u", os.path.abspath(__file__),
               "--module", mod, "--result", out]
        for k in opts["pattern"]:
            cmd += ["-k", k]
        p = run_module(cmd, opts["timeout"])
        res = None
        if os.path.exists(out) and not p.timed_out:
            with open(out) as fh:
                res = json.load(fh)
        return mod, p, res

    try:
        with ThreadPoolExecutor(max_workers=opts["jobs"]) as ex:
            for fut in as_completed([ex.submit(one, m) for m in mods]):
                mod, p, res = fut.result()
                if res is None or res["run"]:
                    sys.stdout.write("== %s\n%s%s" % (mod, p.stdout,
                                                       p.stderr))
                    if res:
                        a, b, _, _ = res["span"].get(mod, (0, 0, 0, 0))
                        sys.stdout.write("== %s: %d tests, %.1f s, cpu %.1f"
                                         " s\n" % (mod, res["run"], b - a,
                                                    res["cpu"]))
                    sys.stdout.flush()
                if p.timed_out:
                    sys.stdout.write("e2e: TIMEOUT %s after %.0f s (-t %g):"
                                     " killed with its processes\n"
                                     % (mod, p.wall, opts["timeout"]))
                    sys.stdout.flush()
                    agg.errors.append((Done(mod), "timed out after %.0f s"
                                       % p.wall))
                    agg.testsRun += 1
                    continue
                if res is None:
                    agg.errors.append((Done(mod), "the module's process "
                                       "ended with %d" % p.returncode))
                    agg.testsRun += 1
                    continue
                agg.testsRun += res["run"]
                agg.failures += [(Done(t), x) for t, x in res["failures"]]
                agg.errors += [(Done(t), x) for t, x in res["errors"]]
                agg.skipped += [(Done(t), x) for t, x in res["skipped"]]
                agg.expectedFailures += [(Done(t), x)
                                         for t, x in res["expected"]]
                agg.unexpectedSuccesses += [Done(t)
                                            for t in res["unexpected"]]
                agg.module_span.update(res["span"])
                agg.module_cpu[mod] = res["cpu"]
                agg.module_own[mod] = res["own"]
                agg.test_times += [tuple(x) for x in res["times"]]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("e2e: %d modules in %d processes, %.1f s wall"
          % (len(mods), min(opts["jobs"], len(mods)),
             time.monotonic() - t0))
    return agg


class ModuleRun:
    """What run_module saw of a module's process."""

    def __init__(self, returncode, stdout, stderr, wall, timed_out):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr
        self.wall, self.timed_out = wall, timed_out


def run_module(cmd, timeout):
    """Run one module's worker process in a session of its own; past
    `timeout` seconds (None: no limit) have it print where each of its
    threads is (faulthandler, SIGUSR1: the test that hung and its line),
    then kill the whole session (the worker and every profan or Python
    process it started, which would otherwise keep the output pipes
    open)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            p.send_signal(signal.SIGUSR1)
            p.wait(timeout=2)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            out, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            out, err = "", "(its output could not be read)\n"
    return ModuleRun(p.returncode, out or "", err or "",
                     time.monotonic() - t0, timed_out)


def selects(loader, mod):
    """True when the loader's -k patterns select a test of module mod (or
    it does not import: its worker then reports the error)."""
    try:
        return loader.loadTestsFromName(mod).countTestCases() > 0
    except Exception:
        return True


def cpu_seconds():
    """User + system CPU seconds of this process and of every child it
    has waited for (profan, Python oracles, their own children)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own_cpu_seconds() + r.ru_utime + r.ru_stime


def own_cpu_seconds():
    """User + system CPU seconds of this process alone (the test's own
    Python: oracles computed in process, scenario making, parsing)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class TimedResult(unittest.TextTestResult):
    """Records each test's wall and CPU time (setUp and tearDown
    included); setUpClass/setUpModule time counts toward the module's
    total, which is measured from the first test of the module to the
    last one's end."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.test_times = []              # (seconds, test id, cpu seconds)
        self.module_span = {}             # module: [first, last, n, cpu]
        self.module_own = {}              # module: own cpu (no children)
        self._t0 = None
        self._prev_end = None

    def startTest(self, test):
        now, cpu = time.monotonic(), cpu_seconds()
        mod = type(test).__module__
        span = self.module_span.setdefault(mod, [now, now, 0, 0.0])
        # class/module fixtures ran between the last test and this one
        if self._prev_end is not None and span[2] == 0:
            span[0] = self._prev_end[0]
            span[3] += cpu - self._prev_end[1]
        own = own_cpu_seconds()
        if self._prev_end is not None and span[2] == 0:
            self.module_own[mod] = own - self._prev_end[2]
        self._t0 = (now, cpu, own)
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        now, cpu = time.monotonic(), cpu_seconds()
        mod = type(test).__module__
        self.test_times.append((now - self._t0[0], test.id(),
                                cpu - self._t0[1]))
        span = self.module_span[mod]
        span[1] = now
        span[2] += 1
        span[3] += cpu - self._t0[1]
        own = own_cpu_seconds()
        self.module_own[mod] = (self.module_own.get(mod, 0.0)
                                + own - self._t0[2])
        self._prev_end = (now, cpu, own)


def print_times(result):
    """One line per module, most CPU first, then the ten tests that took
    most CPU.  A module's CPU is its whole process's when it ran in one
    of its own (-j), else the sum over its tests and class fixtures."""
    times = getattr(result, "module_span", None)
    if not times:
        return
    cpu = {mod: span[3] for mod, span in times.items()}
    cpu.update(getattr(result, "module_cpu", {}))
    own = dict(getattr(result, "module_own", {}))
    for mod, (a, b, n, _) in sorted(times.items(),
                                    key=lambda kv: -cpu[kv[0]]):
        print("e2e: time %7.1f s, cpu %7.1f s (own %6.1f s) %s (%d test%s)"
              % (b - a, cpu[mod], own.get(mod, 0.0), mod, n,
                 "" if n == 1 else "s"))
    print("e2e: time %7.1f s, cpu %7.1f s (own %6.1f s) in all"
          % (sum(b - a for a, b, _, _ in times.values()),
             sum(cpu[mod] for mod in times),
             sum(own.get(mod, 0.0) for mod in times)))
    for sec, tid, c in sorted(result.test_times, key=lambda t: -t[2])[:10]:
        print("e2e: costliest test %6.1f s, cpu %6.1f s %s" % (sec, c, tid))


def summarize(result, ci, unable_prefix):
    """Print the skips and the closing line; return the exit status."""
    failed = len(result.failures) + len(result.errors)
    unexpected = result.unexpectedSuccesses
    known = result.expectedFailures
    declared = [(t, why) for t, why in result.skipped
                if why.startswith(unable_prefix)]
    hidden = [(t, why) for t, why in result.skipped
              if not why.startswith(unable_prefix)]
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped - len(unexpected) - len(known)
    for t, why in declared:
        print("e2e: SKIP (declared) %s: %s" % (t.id(), why))
    for t, why in hidden:
        print("e2e: SKIP%s %s: %s" % (" (not allowed under CI=true)" if ci
                                      else "", t.id(), why))
    for t in unexpected:
        print("e2e: UNEXPECTED SUCCESS %s (drop its @expectedFailure)" % t.id())
    for t, _ in known:
        print("e2e: EXPECTED FAILURE %s (a known bug%s)"
              % (t.id(), ", not allowed under CI=true" if ci else ""))
    if hidden and not ci:
        print("e2e: WARNING: %d test%s skipped for want of fixtures or"
              " inputs; CI=true fails on these" % (len(hidden),
                                                   "" if len(hidden) == 1 else "s"))
    bad = failed + len(unexpected)
    if ci:
        bad += len(hidden) + len(known)
    print("e2e: %d passed, %d failed, %d skipped" % (passed, bad, skipped))
    return 0 if bad == 0 and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
