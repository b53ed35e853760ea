"""test_lanes.py — the bookkeeping of CI's lanes (scripts/ci_lib.sh, which
scripts/test.sh sources), driven here with stub steps whose outputs
imitate each suite's own: Check's "Checks:" line, run_all.py's closing
line, unittest's "Ran N tests", fuzz.sh's harness table, a crash with no
count, a step that passes or fails.

What is checked: each suite's summary line and its counts, a failure that
prints no count still counted as one, the lanes' and steps' wall and CPU
times (a stub that sleeps 2 s shows at least 2 s of wall time, one that
spins until it used 1.5 s of CPU at least 1 s of CPU), and the closing
line: exactly one
"N passed, N failed" as the last line, totalled over all suites, with the
exit status 1 when anything failed.
"""
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

import common
import run_all

# the end of every summary line: wall and CPU seconds
T = r", \d+ s, cpu \d+ s$"

LIB = os.path.join(common.ROOT, "scripts", "ci_lib.sh")


def run_lanes(script):
    """Run `script` (sh) after sourcing ci_lib.sh with the logs in a
    temporary folder; returns (exit status, stdout lines)."""
    with tempfile.TemporaryDirectory() as tmp:
        prog = "L=%s/logs\n. %s\nci_init\n%s\n" % (tmp, LIB, script)
        p = subprocess.run(["sh", "-c", prog], capture_output=True,
                           text=True, stdin=subprocess.DEVNULL,
                           timeout=common.TIMEOUT)
        return p.returncode, p.stdout.splitlines()


def summary(lines, name):
    """The summary line of suite `name` (the first; ci_finish repeats it)."""
    hits = [x for x in lines if x.startswith(name + ": ")]
    if not hits:
        raise AssertionError("no summary line for %r in %r" % (name, lines))
    return hits[0]


class Lanes(unittest.TestCase):

    def test_counts_of_every_kind_and_the_closing_line(self):
        rc, out = run_lanes(r"""
lane_begin fast
step "build" true
suite "gcc unit" check sh -c 'echo "Running suite(s): util"; echo "96%: Checks: 180, Failures: 4, Errors: 3"; exit 1'
suite "gcc e2e" e2e sh -c 'echo "e2e: 370 passed, 0 failed, 2 skipped"'
suite "pngstat" unittest sh -c 'echo "Ran 12 tests in 0.5s"; echo "FAILED (failures=2, errors=1)"; exit 1'
step "style" sh -c 'echo bad style; exit 3'
lane_begin slow
suite "fuzz" fuzz sh -c 'printf "harness execs\njscan 100 10 5 6 ok\ntrace 100 10 5 6 ok\npickle crashed (see x)\n"; exit 1'
suite "asan unit" check sh -c 'echo "==1==ERROR: AddressSanitizer"; exit 134'
suite "asan e2e" e2e sh -c 'echo nothing counted'
ci_finish
""")
        self.assertEqual(rc, 1)
        self.assertRegex(summary(out, "build"), r"^build: 1 passed, 0 failed" + T)
        self.assertRegex(summary(out, "gcc unit"),
                         r"^gcc unit: 173 passed, 7 failed" + T)
        self.assertRegex(summary(out, "gcc e2e"), r"^gcc e2e: 370 passed, 0 failed,"
                         r" 2 SKIPPED \(see the e2e: SKIP lines in the log\)" + T)
        self.assertRegex(summary(out, "pngstat"), r"^pngstat: 9 passed, 3 failed" + T)
        self.assertRegex(summary(out, "style"),
                         r"^style: 0 passed, 1 failed, see .*/logs/style.log" + T)
        self.assertRegex(summary(out, "fuzz"), r"^fuzz: 2 passed, 1 failed" + T)
        # a crash prints no count: one failure, with the exit status
        self.assertRegex(summary(out, "asan unit"),
                         r"^asan unit: 0 passed, 1 failed, exit status 134" + T)
        # exit 0 with nothing counted is no pass
        self.assertRegex(summary(out, "asan e2e"), r"^asan e2e: 0 passed, 1 failed,"
                         r" no count in its output" + T)
        self.assertRegex(summary(out, "lane fast"), r"^lane fast: \d+ s, cpu \d+ s$")
        self.assertRegex(summary(out, "lane slow"), r"^lane slow: \d+ s, cpu \d+ s$")
        self.assertRegex(out[-2], r"^all lanes: \d+ s, cpu \d+ s$")
        self.assertEqual(out[-1], "%d passed, %d failed" % (
            1 + 173 + 370 + 9 + 0 + 2 + 0 + 0, 0 + 7 + 0 + 3 + 1 + 1 + 1 + 1))
        closing = [x for x in out if re.match(r"^\d+ passed, \d+ failed$", x)]
        self.assertEqual(closing, [out[-1]])

    def test_all_passed_exits_0(self):
        rc, out = run_lanes(r"""
lane_begin fast
suite "gcc unit" check sh -c 'echo "100%: Checks: 5, Failures: 0, Errors: 0"'
step "style" true
ci_finish
""")
        self.assertEqual(rc, 0, out)
        self.assertEqual(out[-1], "6 passed, 0 failed")

    def test_times_of_steps_and_lanes(self):
        rc, out = run_lanes(r"""
lane_begin fast
step "slow step" sleep 2
step "quick step" true
lane_begin slow
step "other" sleep 1
step "busy step" python3 -c 'import time
while time.process_time() < 1.5: pass'
ci_finish
""")
        self.assertEqual(rc, 0, out)
        secs = lambda name: int(re.search(r"(\d+) s, cpu \d+ s$",
                                          summary(out, name)).group(1))
        cpu = lambda name: int(re.search(r"cpu (\d+) s$",
                                         summary(out, name)).group(1))
        # lower bounds only: a loaded machine makes every step longer
        self.assertGreaterEqual(secs("slow step"), 2)
        self.assertGreaterEqual(secs("lane fast"), 2)
        self.assertGreaterEqual(secs("lane slow"), 1)
        self.assertLessEqual(secs("quick step"), secs("lane fast"))
        # CPU: the step's processes (a loop that runs until it has used
        # 1.5 s of CPU), not its sleeps
        self.assertGreaterEqual(cpu("busy step"), 1)
        self.assertGreaterEqual(cpu("lane slow"), 1)
        self.assertLessEqual(cpu("slow step"), cpu("lane fast"))
        self.assertLess(cpu("slow step"), 2)
        all_lanes = int(re.search(r"(\d+) s, cpu \d+ s$", out[-2]).group(1))
        self.assertGreaterEqual(all_lanes, secs("lane fast") + secs("lane slow") - 1)

    def test_test_sh_ends_with_the_closing_line(self):
        # the script's last command is ci_finish: nothing may print after
        # the closing line
        with open(os.path.join(common.ROOT, "scripts", "test.sh")) as fh:
            last = [x for x in fh.read().splitlines()
                    if x.strip() and not x.startswith("#")][-1]
        self.assertEqual(last, "ci_finish")


# A module's process that hangs: it starts a child that would outlive it
# (as a profan or a server a test started does), registers faulthandler on
# SIGUSR1 as run_all.py's workers do, prints, then waits forever.
HANG = r"""
import faulthandler, signal, subprocess, sys, time
faulthandler.register(signal.SIGUSR1, all_threads=True)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print("child", child.pid, flush=True)
def the_test_that_hangs():
    time.sleep(600)
the_test_that_hangs()
"""


class ModuleTimeout(unittest.TestCase):
    """run_all.py -t: a module past its time is killed with every process
    it started, and says where it hung; one that ends in time is left
    alone."""

    def test_hung_module_is_killed_with_its_children(self):
        t0 = time.monotonic()
        r = run_all.run_module([sys.executable, "-u", "-c", HANG], 3)
        self.assertTrue(r.timed_out)
        self.assertLess(time.monotonic() - t0, 60)
        self.assertGreaterEqual(r.wall, 3)
        pid = int(re.search(r"^child (\d+)$", r.stdout, re.M).group(1))
        # the child is gone (killed with the session, reaped by init): no
        # such process, or a zombie at most
        try:
            with open("/proc/%d/stat" % pid) as fh:
                state = fh.read().rsplit(")", 1)[1].split()[0]
            self.assertEqual(state, "Z")
        except FileNotFoundError:
            pass
        # faulthandler's stack names the function that hung
        self.assertIn("the_test_that_hangs", r.stderr)

    def test_module_in_time_is_not_killed(self):
        r = run_all.run_module([sys.executable, "-c",
                                "import sys; print('ok');"
                                " sys.stderr.write('e'); sys.exit(3)"], 60)
        self.assertFalse(r.timed_out)
        self.assertEqual((r.returncode, r.stdout, r.stderr), (3, "ok\n", "e"))

    def test_timeout_is_reported_with_the_module_name(self):
        # this module alone, its probe told to hang (HangProbe)
        others = []
        for m in os.listdir(os.path.dirname(os.path.abspath(__file__))):
            if m.startswith("test_") and m.endswith(".py") \
                    and m != "test_lanes.py":
                others += ["-x", m[:-3]]
        t0 = time.monotonic()
        out = run_all_py("-t", "3", "-k", "test_hang_probe", *others,
                         env=dict(os.environ, PROFAN_E2E_HANG_PROBE="1"))
        self.assertLess(time.monotonic() - t0, 120)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertRegex(out.stdout, r"(?m)^e2e: TIMEOUT test_lanes after \d+ s"
                         r" \(-t 3\): killed with its processes$")
        self.assertIn("in test_hang_probe", out.stdout)
        self.assertRegex(out.stdout, r"(?m)^e2e: 0 passed, 1 failed, 0 skipped$")

    def test_pattern_starts_only_the_modules_it_selects(self):
        # -t runs a process per module: only for the modules -k selects
        out = run_all_py("-t", "600", "-k", "test_module_in_time_is_not_killed")
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertRegex(out.stdout, r"(?m)^e2e: 1 modules in 1 processes,")
        self.assertRegex(out.stdout, r"(?m)^e2e: 1 passed, 0 failed, 0 skipped$")

    def test_bad_timeout_is_a_usage_error(self):
        self.assertEqual(run_all_py("-t", "0").returncode, 2)
        self.assertEqual(run_all_py("-t", "x").returncode, 2)


if os.environ.get("PROFAN_E2E_HANG_PROBE") == "1":
    class HangProbe(unittest.TestCase):
        """Defined only when test_timeout_is_reported_with_the_module_name
        runs this module under run_all.py -t: a test that hangs."""

        def test_hang_probe(self):
            time.sleep(600)


def run_all_py(*args, env=None):
    return subprocess.run([sys.executable, os.path.join(common.ROOT, "tests",
                                                       "e2e", "run_all.py"),
                           common.PROFAN] + list(args), capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, env=env,
                          timeout=common.TIMEOUT)


def read(rel):
    with open(os.path.join(common.ROOT, rel)) as fh:
        return fh.read()


class Selections(unittest.TestCase):
    """The lists that leave work out of the slow lane (issue 34's budget)
    name what exists, each with its reason, so that a renamed module or
    suite cannot drop out of, or stay wrongly in, a sanitizer run."""

    def test_asan_python_heavy_modules_exist_and_are_explained(self):
        text = read("scripts/test.sh")
        names = []
        for var in ("ASAN_PYTHON_HEAVY", "ASAN_REPEATS"):
            m = re.search(r'^%s="([^"]*)"' % var, text, re.M)
            self.assertIsNotNone(m, var)
            names += m.group(1).replace("\\\n", " ").split()
        self.assertIn("test_oracle", names)
        self.assertIn("test_corpus", names)
        mods = {f[:-3] for f in os.listdir(os.path.join(common.ROOT, "tests",
                                                        "e2e"))
                if f.startswith("test_") and f.endswith(".py")}
        comments = "\n".join(l for l in text.splitlines()
                             if l.startswith("#"))
        for n in names:
            self.assertIn(n, mods, "ASAN_PYTHON_HEAVY names no module %s" % n)
            self.assertRegex(comments, r"#   %s\s" % n,
                             "%s has no reason in test.sh's comment" % n)
        # the rest run under ASan: -x for these names only
        self.assertIn('ASAN_SKIP="$ASAN_SKIP -x $m"', text)
        self.assertIn("for m in $ASAN_PYTHON_HEAVY $ASAN_REPEATS; do", text)

    def test_valgrind_finds_every_unit_suite(self):
        """analyze.sh runs valgrind suite by suite, the names read from
        suite_create() in tests/*.c: they must be the suites check_main
        runs, and the ones it leaves out must exist."""
        files = [f for f in os.listdir(os.path.join(common.ROOT, "tests"))
                 if f.endswith(".c")]
        created = set()
        for f in files:
            created |= set(re.findall(r'suite_create\("([^"]*)"\)',
                                      read(os.path.join("tests", f))))
        added = re.findall(r"make_(\w+)_suite\(\)\)",
                           read("tests/check_main.c"))
        self.assertEqual(created, set(added))
        analyze = read("scripts/analyze.sh")
        m = re.search(r"VALGRIND_SKIP_SUITES-([a-z_ ]*)\}", analyze)
        self.assertIsNotNone(m)
        for s in m.group(1).split():
            self.assertIn(s, created, "VALGRIND_SKIP_SUITES: no suite %s" % s)


if __name__ == "__main__":
    unittest.main()
