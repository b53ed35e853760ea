"""test_docs.py — the manual page and the shell completions made from the
command table (`profan --man`, `profan --completion bash|zsh`), the pages
of docs/ generated from the binary, and the hand-written pages checked
against it.

The commands and options expected are read from `profan --help` and each
command's --help output here, independently of how src/cli/cli_docs.c reads
the table; the bash completion is run in bash on simulated command lines.

Generated pages (`Generated`): docs/commands.md is `profan --reference`,
docs/queries.md `profan queries --reference`; both must equal what the
binary prints (`cmake --build build --target regen_docs` rewrites them).
The environment table of the reference must hold exactly the PROFAN_*
names the sources read.

Hand-written pages (`HandWritten`: README.md, CONTRIBUTING.md, docs/*.md
but the generated ones) may name only what the binary has: in code spans
and code-block lines that run profan (`profan X ...`, also
`build/profan`), the command X, its options (`--opt`: the command's
--help or a global option) and the query of `profan query NAME`; a code
span that is a lone option (`--opt`) must be an option of profan or of a
script of the project; a PROFAN_* name must be in the environment table
or read by a script or test of the project; "exit N" / "exits N" must be
a code of the exit-code table.
"""
import glob
import gzip
import json
import os
import shlex
import re
import subprocess
import tempfile
import unittest

import common


def commands():
    """The command names of `profan --help`."""
    out = common.run("--help").out
    block = out.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.strip()]


def bash_complete(script, words):
    """COMPREPLY of the bash completion for the command line `words` (the
    last word is the one being completed)."""
    prog = (script + "\nCOMP_WORDS=(%s)\nCOMP_CWORD=%d\n_profan\n"
            "printf '%%s\\n' \"${COMPREPLY[@]}\"\n"
            % (" ".join("'%s'" % w for w in words), len(words) - 1))
    r = subprocess.run(["bash", "-c", prog], capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(r.stderr)
    return sorted(r.stdout.split())


class Docs(unittest.TestCase):
    def test_man_page_lists_every_command(self):
        r = common.run("--man")
        self.assertEqual(r.rc, 0)
        cmds = commands()
        self.assertGreater(len(cmds), 10)
        for c in cmds:
            self.assertIn("\n.SS %s\n" % c.replace("-", "\\-"), r.out)
        self.assertIn(".SS ingest\n.B profan ingest [options] PATH...", r.out.replace("\\-", "-"))
        # groff renders the page (CI=true fails when it is missing)
        common.need_tool("groff", "groff-base")
        g = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z"],
                           input=r.out, capture_output=True, text=True)
        self.assertEqual(g.stderr, "")

    def test_bash_completion(self):
        script = common.run("--completion", "bash").out
        self.assertEqual(bash_complete(script, ["profan", "in"]), ["ingest"])
        self.assertEqual(bash_complete(script, ["profan", ""]),
                         sorted(commands() + ["help"]))
        self.assertEqual(bash_complete(script, ["profan", "ingest", "--na"]),
                         ["--name"])
        # after a global option with a value, the command is still found
        self.assertEqual(bash_complete(script, ["profan", "--db", "x.db",
                                                "query", "--pa"]), ["--param"])
        # "-o, --output F" in the help gives --output
        self.assertEqual(bash_complete(script, ["profan", "export-trace",
                                                "--out"]), ["--output"])
        self.assertEqual(bash_complete(script, ["profan", "--format", "j"]),
                         ["json"])
        # every option of every command's help is offered
        for c in commands():
            helptext = common.run(c, "--help").out
            want = set(re.findall(r"^  (?:-\w, )?(--[\w-]+)", helptext, re.M))
            got = set(bash_complete(script, ["profan", c, "--"]))
            self.assertLessEqual(want, got, c)

    def test_zsh_completion(self):
        r = common.run("--completion", "zsh")
        self.assertEqual(r.rc, 0)
        self.assertTrue(r.out.startswith("#compdef profan\n"))
        for c in commands():
            self.assertIn("\n    %s) opts=(" % c, r.out)
        common.need_tool("zsh", "zsh")
        z = subprocess.run(["zsh", "-n"], input=r.out, capture_output=True,
                           text=True)
        self.assertEqual(z.returncode, 0, z.stderr)

    def test_unknown_shell(self):
        r = common.run("--completion", "fish")
        self.assertEqual(r.rc, 2)
        self.assertIn("profan: no completion for shell 'fish' (bash, zsh)",
                      r.err)


GENERATED = ("docs/commands.md", "docs/queries.md")
NO_USER_QUERIES = {"PROFAN_QUERIES": "", "PROFAN_RULES": ""}


def read(rel):
    with open(os.path.join(common.ROOT, rel), encoding="utf-8") as f:
        return f.read()


def section(text, title):
    """The body of markdown section `## title` of text."""
    return text.split("\n## %s\n" % title, 1)[1].split("\n## ", 1)[0]


def environment_table():
    """The PROFAN_* names of the reference's Environment table."""
    ref = common.run("--reference").out
    return re.findall(r"^\| `(PROFAN_[A-Z0-9_]+)` \|", section(ref, "Environment"),
                      re.M)


def project_text(*patterns):
    """The text of the project's files matching the glob patterns (this
    file left out: its examples of mistakes are not names)."""
    out = []
    for pat in patterns:
        for p in glob.glob(os.path.join(common.ROOT, pat), recursive=True):
            if os.path.isfile(p) and not p.endswith("test_docs.py"):
                with open(p, encoding="utf-8", errors="replace") as f:
                    out.append(f.read())
    return "\n".join(out)


# the files whose options and variables a page may also name: the
# project's own scripts and tests (not the pages themselves)
SCRIPTS = ("scripts/*", "bench/*.py", "fuzz/*.sh", "tests/e2e/*.py",
           "tests/browser/*.py", ".ci/*", "python/*.py", "CMakeLists.txt")


class Generated(unittest.TestCase):
    def test_commands_page_is_what_the_binary_prints(self):
        r = common.run("--reference")
        self.assertEqual(r.rc, 0)
        self.assertEqual(read("docs/commands.md"), r.out,
                         "docs/commands.md differs from 'profan --reference':"
                         " cmake --build build --target regen_docs")

    def test_queries_page_is_what_the_binary_prints(self):
        r = common.run("queries", "--reference", env=NO_USER_QUERIES)
        self.assertEqual(r.rc, 0)
        self.assertEqual(read("docs/queries.md"), r.out,
                         "docs/queries.md differs from 'profan queries"
                         " --reference': cmake --build build --target"
                         " regen_docs")
        # the same catalogue as `profan queries --verbose`, read from the
        # query files' headers here
        names = sorted(os.path.basename(p)[:-4] for p in
                       glob.glob(os.path.join(common.ROOT, "queries", "*.sql")))
        self.assertEqual(re.findall(r"^## (\S+)$", r.out, re.M), names)
        for name in names:
            head = read("queries/%s.sql" % name)
            body = section(r.out, name)
            for param in re.findall(r"^-- param: ([a-z_]+)", head, re.M):
                self.assertIn("\n| `%s` |" % param, body, (name, param))
            for col in re.findall(r"^-- column: ([a-z_0-9]+)", head, re.M):
                self.assertIn("\n| `%s` |" % col, body, (name, col))
        # `profan --reference queries` is the same option, spelt the other way
        self.assertEqual(common.run("--reference", "queries",
                                    env=NO_USER_QUERIES).out, r.out)
        bad = common.run("--reference", "kernels")
        self.assertEqual(bad.rc, 2)
        self.assertIn("--reference prints the commands, or with 'queries'",
                      bad.err)

    def test_environment_table_is_what_the_sources_read(self):
        names = environment_table()
        src = project_text("src/**/*.c")
        read_by_src = set(re.findall(r'"(PROFAN_[A-Z0-9_]+)"', src))
        self.assertEqual(sorted(set(names)), sorted(read_by_src))
        self.assertEqual(len(names), len(set(names)))
        man = common.run("--man").out
        env = man.split(".SH ENVIRONMENT\n", 1)[1]
        self.assertEqual(re.findall(r"^\.B (PROFAN\S+)$", env.replace("\\-", "-"),
                                    re.M), names)


def hand_written_pages():
    pages = ["README.md", "CONTRIBUTING.md"]
    pages += sorted(os.path.relpath(p, common.ROOT) for p in
                    glob.glob(os.path.join(common.ROOT, "docs", "*.md")))
    return [p for p in pages if p not in GENERATED]


# global options that take a value (their value is not the command)
GLOBAL_WITH_VALUE = {"--db", "--format", "--width", "--completion"}


def profan_invocations(text):
    """(words, where) of each command line that runs profan in text: the
    code spans and the lines of code blocks starting with profan (or a
    path ending in /profan)."""
    out = []
    spans = re.findall(r"`([^`\n]+)`", text)
    lines = [l.strip() for l in text.splitlines()
             if l.startswith("    ") or l.startswith("\t")]
    for s in spans + lines:
        s = re.sub(r"^\$ ", "", s.strip())
        words = s.split()
        if words and re.fullmatch(r"(\S*/)?profan", words[0]):
            out.append(words[1:])
    return out


class HandWritten(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        help_ = common.run("--help").out
        cls.commands = set(commands()) | {"help"}
        glob_block = help_.split("Global options:\n", 1)[1].split("\n\n")[0]
        cls.globals = set(re.findall(r"^  (--[\w-]+)", glob_block, re.M))
        cls.cmd_opts = {}
        for c in commands():
            h = common.run(c, "--help").out
            cls.cmd_opts[c] = set(re.findall(r"(?<![\w-])(--[a-z][\w-]*)", h))
        cls.all_opts = cls.globals.union(*cls.cmd_opts.values())
        cls.queries = {l.split()[0] for l in
                       common.run("queries", env=NO_USER_QUERIES).out.splitlines()
                       if l.strip()}
        cls.env = set(environment_table())
        cls.scripts = project_text(*SCRIPTS)
        cls.codes = {int(c) for c in re.findall(
            r"^\| (\d+) \|", section(common.run("--reference").out,
                                     "Exit codes"), re.M)}

    def problems(self, rel, text):
        bad = []
        for words in profan_invocations(text):
            i = 0
            while i < len(words) and words[i].startswith("-"):
                opt = words[i].split("=")[0]
                if opt not in self.globals:
                    bad.append("option %s (global)" % opt)
                i += 2 if opt in GLOBAL_WITH_VALUE else 1
            if i >= len(words):
                continue
            cmd = words[i]
            if not re.fullmatch(r"[a-z][a-z-]*", cmd):
                continue            # a placeholder (CMD, NAME) or a version
            if cmd not in self.commands:
                bad.append("command 'profan %s'" % cmd)
                continue
            allowed = self.globals | self.cmd_opts.get(cmd, self.all_opts)
            for w in words[i + 1:]:
                for opt in re.findall(r"(?<![\w-])(--[a-z][\w-]*)", w):
                    if opt not in allowed:
                        bad.append("option %s of 'profan %s'" % (opt, cmd))
            if cmd == "query" and len(words) > i + 1:
                q = words[i + 1]
                if re.fullmatch(r"[a-z][a-z0-9-]*", q) and q not in self.queries:
                    bad.append("query '%s'" % q)
        for span in re.findall(r"`([^`\n]+)`", text):
            m = re.fullmatch(r"(--[a-z][\w-]*)(?:[ =].*)?", span)
            if m and m.group(1) not in self.all_opts \
                    and m.group(1) not in self.scripts:
                bad.append("option %s" % m.group(1))
        for var in set(re.findall(r"\bPROFAN_[A-Z][A-Z0-9_]*[A-Z0-9]\b", text)):
            if var not in self.env and var not in self.scripts:
                bad.append("variable %s" % var)
        for n in re.findall(r"\bexits? (?:code |status )?(\d+)\b", text):
            if int(n) not in self.codes:
                bad.append("exit %s" % n)
        return ["%s: %s" % (rel, b) for b in bad]

    def test_pages_name_only_what_the_binary_has(self):
        pages = hand_written_pages()
        self.assertIn("README.md", pages)
        self.assertIn("docs/guide.md", pages)
        bad = []
        for rel in pages:
            bad += self.problems(rel, read(rel))
        self.assertEqual(bad, [])

    def test_readme_command_table_has_each_command_once(self):
        table = section(read("README.md"), "Commands")
        rows = re.findall(r"^\| `profan ([a-z-]+)", table, re.M)
        self.assertEqual(sorted(rows), sorted(commands()))

    def test_links_between_pages_resolve(self):
        # a relative link names a file of the repository and, with
        # #anchor, a heading of that page (GitHub's anchor rule)
        bad = []
        for rel in hand_written_pages() + list(GENERATED):
            text = read(rel)
            for target in re.findall(r"\]\(([^)\s]+)\)", text):
                if re.match(r"[a-z]+:", target):
                    continue
                path, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(rel),
                                                     path)) if path else rel
                if not os.path.exists(os.path.join(common.ROOT, dest)):
                    bad.append("%s: %s" % (rel, target))
                    continue
                if anchor and dest.endswith(".md"):
                    heads = re.findall(r"^#+ (.*)$", read(dest), re.M)
                    slugs = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-")
                             for h in heads}
                    if anchor not in slugs:
                        bad.append("%s: %s (no such heading)" % (rel, target))
        self.assertEqual(bad, [])

    def test_the_check_finds_each_kind_of_mistake(self):
        # the checker itself, on text with one mistake of each kind
        text = ("`profan ingest --bogus-option x`\n"
                "    profan frobnicate run1\n"
                "`profan query no-such-query`\n"
                "`--no-such-flag`\n"
                "set `PROFAN_NO_SUCH_VAR`; it exits 9 on error\n"
                "`profan --db x.db query top-kernels --run latest`\n")
        self.assertEqual(sorted(self.problems("t", text)), sorted([
            "t: option --bogus-option of 'profan ingest'",
            "t: command 'profan frobnicate'",
            "t: query 'no-such-query'",
            "t: option --no-such-flag",
            "t: variable PROFAN_NO_SUCH_VAR",
            "t: exit 9"]))



class ReadmeWalkthrough(unittest.TestCase):
    """The README's "Your own run in five minutes", command by command as
    printed there, on the bundled sample run: runs/today/ is a copy of
    fixtures/sample-run, runs/tomorrow/ the same traces gzipped again (other
    bytes, so a new run; the same events, so check passes)."""

    def test_every_command_of_the_walkthrough_works(self):
        readme = read("README.md")
        sec = section(readme, "Your own run in five minutes")
        lines = [l.strip() for l in sec.splitlines() if l.startswith("    ")]
        cmds = [shlex.split(l.split("  #")[0]) for l in lines]
        cmds = [c for c in cmds if c and c[0] == "profan"]
        self.assertGreaterEqual(len(cmds), 8)
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(common.ROOT, "fixtures", "sample-run")
            for run, mtime in (("today", None), ("tomorrow", 1)):
                os.makedirs(os.path.join(d, "runs", run))
                for f in sorted(os.listdir(src)):
                    with open(os.path.join(src, f), "rb") as fi:
                        data = fi.read()
                    if mtime is not None:
                        data = gzip.compress(gzip.decompress(data), mtime=mtime)
                    with open(os.path.join(d, "runs", run, f), "wb") as fo:
                        fo.write(data)
            env = dict(os.environ)
            env.pop("PROFAN_DB", None)
            seen = set()
            for c in cmds:
                r = subprocess.run([common.PROFAN] + c[1:], cwd=d, env=env,
                                   capture_output=True, text=True,
                                   stdin=subprocess.DEVNULL, timeout=common.TIMEOUT)
                self.assertEqual(r.returncode, 0, "%s: %s" % (c, r.stderr))
                seen.add(c[1])
            # the five steps the README promises
            self.assertLessEqual({"ingest", "report", "baseline", "check",
                                  "export-trace"}, seen)
            self.assertTrue(os.path.exists(os.path.join(d, "profan.db")))
            htmls = glob.glob(os.path.join(d, "*.html"))
            self.assertEqual(len(htmls), 1)
            with open(htmls[0], encoding="utf-8") as f:
                self.assertIn("<html", f.read(1000).lower())
            traces = glob.glob(os.path.join(d, "*.json.gz"))
            self.assertEqual(len(traces), 1)
            with gzip.open(traces[0], "rt") as f:
                doc = json.load(f)
            ranks = {e.get("pid") for e in doc["traceEvents"]
                     if e.get("ph") == "X"}
            self.assertGreaterEqual(len(ranks), 2)   # both ranks, one file


if __name__ == "__main__":
    unittest.main()
