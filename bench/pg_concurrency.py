#!/usr/bin/env python3
"""pg_concurrency.py — the issue-36 concurrency run at full size: 16
processes push 50 runs each at once into one history server while 4
more run `check`; the same checks as test_history_server.py's
Concurrent test (which runs 16 x 3 in CI), with the numbers printed.

usage: python3 bench/pg_concurrency.py PROFAN [--procs N] [--per P]
                                       [--checkers C] [--work DIR]

Exit 1 when a run is missing or stored twice, an id is skipped, a push
failed, or a check answered another verdict than the known one.
"""
import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profan")
    ap.add_argument("--procs", type=int, default=16)
    ap.add_argument("--per", type=int, default=50)
    ap.add_argument("--checkers", type=int, default=4)
    ap.add_argument("--work", default=os.path.join(HERE, "out", "pgconc"))
    a = ap.parse_args()
    os.environ["PROFAN_BIN"] = os.path.abspath(a.profan)
    import pg_concurrency
    import pgserver
    import test_history_server as ths
    profan = os.environ["PROFAN_BIN"]
    os.makedirs(a.work, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=a.work)
    ths.FAMILY_TMP = tmp
    family = ths.family()
    clones = pg_concurrency.make_clones(profan, os.path.join(tmp, "c"),
                                        a.procs * a.per)
    srv = pgserver.PgServer().start()
    bad = []
    try:
        srv.psql("CREATE DATABASE conc")
        url = srv.url("conc")
        rc, out, err = ths.profan("push", *range(1, 13), "--to", url,
                                  db=family)
        if rc:
            sys.exit("push of the family: " + err)
        r = pg_concurrency.run(profan, url, family, clones, a.procs, a.per,
                               a.checkers)
        print(pg_concurrency.summary(r))
        for rc, out, err in r["pushes"]:
            if rc:
                bad.append("push exit %d: %s" % (rc, err.strip()))
        names = srv.psql("SELECT name, count(*) FROM profan.run WHERE id"
                         " > 12 GROUP BY name", "conc")
        want = a.procs * a.per
        ids = sorted(int(x[0]) for x in srv.psql("SELECT id FROM"
                                                 " profan.run", "conc"))
        twice = [m for m, c in names if c != "1"]
        print("runs stored: %d of %d (+12 of the family), stored twice: %d,"
              " ids 1..%d without a gap: %s, skipped as already there: %d"
              % (len(names), want, len(twice), len(ids),
                 ids == list(range(1, len(ids) + 1)),
                 sum(pg_concurrency.skipped(o) for _, o, _ in r["pushes"])))
        if len(names) != want or twice or ids != list(range(1, want + 13)):
            bad.append("runs lost, doubled or ids skipped")
        bad += ["check %s: exit %d, want %d: %s" % (c[0], c[2], c[1],
                                                    c[3].strip())
                for c in r["checks"] if c[2] != c[1]]
    finally:
        srv.cleanup()
    if bad:
        print("\n".join(bad[:20]))
        sys.exit(1)


if __name__ == "__main__":
    main()
