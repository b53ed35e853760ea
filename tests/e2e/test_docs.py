"""test_docs.py — the manual page and the shell completions made from the
command table (`profan --man`, `profan --completion bash|zsh`).

The commands and options expected are read from `profan --help` and each
command's --help output here, independently of how src/cli/cli_docs.c reads
the table; the bash completion is run in bash on simulated command lines.
"""
import re
import subprocess
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


if __name__ == "__main__":
    unittest.main()
