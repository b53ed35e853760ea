"""test_libpq_load.py — libpq is loaded when a history server is first
used, not at every start (issue 29's speed: loading libpq and its ~20
libraries cost ~6 ms of CPU at each start, a tenth of a small ingest).

glibc's loader says what it loads under LD_DEBUG=libs: a command on a
local database loads no libpq; push loads it; a libpq that cannot be
loaded is a history-server error (exit 7) that names it, and nothing
else changes.
"""
import os
import unittest

import common
from common import ProfanTest

URL = "host=/nonexistent-profan-socket-dir dbname=x connect_timeout=1"


class LibpqLoad(ProfanTest):

    def loaded(self, *args):
        r = self.profan(*args, env={"LD_DEBUG": "libs"})
        if "find library=" not in r.err:
            common.env_unable("the loader does not trace (LD_DEBUG=libs:"
                              " not glibc)")
        return r, "libpq.so" in r.err

    def make_run(self):
        path = os.path.join(self.tmp.name, "t.json")
        with open(path, "w") as f:
            f.write('{"traceEvents": [{"ph": "X", "cat": "cpu_op",'
                    ' "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1,'
                    ' "dur": 5, "args": {}}]}')
        self.ingest_ok(path)

    def test_local_commands_load_no_libpq(self):
        self.make_run()
        for args in (("--help",), ("runs",), ("query", "summary")):
            r, has = self.loaded(*args)
            self.assertFalse(has, (args, r.err[-2000:]))

    def test_push_loads_it(self):
        self.make_run()
        r, has = self.loaded("push", "--to", URL)
        self.assertTrue(has, r.err[-2000:])
        self.assertEqual(r.rc, 7, r.err[-2000:])

    def test_unloadable_libpq_is_a_server_error(self):
        self.make_run()
        bad = os.path.join(self.tmp.name, "lib")
        os.mkdir(bad)
        open(os.path.join(bad, "libpq.so.5"), "w").close()
        r = self.profan("push", "--to", URL,
                        env={"LD_LIBRARY_PATH": bad})
        self.assertEqual(r.rc, 7, r.err)
        self.assertIn("history server: cannot load libpq: ", r.err)
        self.assertIn("libpq.so.5", r.err)


if __name__ == "__main__":
    unittest.main()
