#!/usr/bin/env python3
"""pg_big.py — check, trend and runs against a 100,000-run history on a
PostgreSQL server (issue 36), each beside the same command over the same
history in a local file (the baseline of the ratio, same run, same
machine), and their answers compared (exit 1 when they differ).

usage: python3 bench/pg_big.py PROFAN [--runs N] [--repeat R] [--work DIR]

The history: make_history.py's archive of the 2-rank sample run and its
clone_runs() to N runs with SQL (each clone its own name, content hash,
branch tag and duration factor; the issue-19 history), in a local
`--summaries-only` file.  The same rows go to a throwaway server
(tests/e2e/pgserver.py) with one COPY per table, as `profan push` would
have stored them (ids as in the file, `ord` a row's place among its
run's rows in rowid order): pushing 100,000 runs one by one would take
hours, and the oracle of the answers is the file anyway.  The table and
column lists are the catalogue's (statements/history-columns.sql), never
a list here.  Then, median of R: check with a full window near the end
(baseline r(N-10)), check against the first run, trend of one stored
metric, trend --last 20, and runs --last... (see CMDS).
"""
import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
sys.path.insert(0, HERE)
import make_history  # noqa: E402
import pgserver  # noqa: E402
from pg_bench import local_vs_server  # noqa: E402


def cmds(n):
    return [["check", "--baseline", "late", "--run", "latest"],
            ["check", "--baseline", "main", "--run", "r%d" % (n - 1),
             "--tag", "branch=main"],
            ["diff", "r%d" % (n - 10), "latest", "--by", "metrics"],
            ["trend", "step_time_median_ms", "--last", "20"],
            ["trend", "step_time_median_ms"]]


def copy_text(v):
    """One value in COPY's text format."""
    if v is None:
        return "\\N"
    if isinstance(v, float):
        if v != v:
            return "NaN"
        if v in (float("inf"), float("-inf")):
            return "Infinity" if v > 0 else "-Infinity"
        return repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, bytes):
        return "\\\\x" + v.hex()
    return (v.replace("\\", "\\\\").replace("\t", "\\t")
            .replace("\n", "\\n").replace("\r", "\\r"))


def catalogue(hist):
    """{table: [by_id, [columns]]} of the history's catalogue
    (statements/history-columns.sql) and the strings."""
    con = sqlite3.connect(hist)
    with open(os.path.join(ROOT, "statements", "history-columns.sql")) as f:
        sql = f.read()
    tabs = {}
    for tbl, col, _type, by_id, _is_str in con.execute(sql):
        tabs.setdefault(tbl, [bool(by_id), []])[1].append(col)
    tabs["string"] = [True, ["id", "text"]]
    con.close()
    return tabs


def copy_to_server(srv, db, hist, only=None):
    """The tables of the history's catalogue (or those in only) into the
    server's schema profan (made by a profan command first), one COPY
    per table."""
    con = sqlite3.connect(hist)
    psql = os.path.join(srv.bin, "psql")
    total = 0
    for tbl, (by_id, cols) in catalogue(hist).items():
        if only is not None and tbl not in only:
            continue
        qcols = ", ".join('"%s"' % c for c in cols)
        dest = qcols if by_id else qcols + ", ord"
        try:
            con.execute('SELECT rowid FROM "%s" LIMIT 0' % tbl)
            order = " ORDER BY rowid"
        except sqlite3.OperationalError:
            order = ""                 # WITHOUT ROWID: its key's order
        sel = 'SELECT %s FROM "%s"%s' % (qcols, tbl, order)
        i_run = cols.index("run_id") if "run_id" in cols else None
        place = {}
        p = subprocess.Popen([psql, "-X", "-q", "-v", "ON_ERROR_STOP=1",
                              "-h", srv.sock, "-U", pgserver.SUPERUSER,
                              "-d", db, "-c", "COPY profan.\"%s\"(%s) FROM"
                              " STDIN" % (tbl, dest)],
                             stdin=subprocess.PIPE, text=True)
        buf = []
        for row in con.execute(sel):
            if not by_id:
                # ord: the row's place among its run's rows, as a push
                k = place.get(row[i_run], 0)
                place[row[i_run]] = k + 1
                row = row + (k,)
            buf.append("\t".join(copy_text(v) for v in row))
            total += 1
            if len(buf) >= 50000:
                p.stdin.write("\n".join(buf) + "\n")
                buf = []
        if buf:
            p.stdin.write("\n".join(buf) + "\n")
        p.stdin.close()
        if p.wait():
            sys.exit("COPY of %s failed" % tbl)
    con.close()
    return total


def replicate(tabs, block, copies, server):
    """Statements that repeat runs 1..block copies-1 more times, each
    copy k with run ids + k*block, names r<i> and content hashes as
    clone_runs() gives run i, and ids + k * the table's largest id: the
    same rows in SQLite (server False) and on the server (True).  The
    baselines stay; each copy keeps its block's duration factors."""
    out = []
    series = ("generate_series(1, %d) AS g(k)" % (copies - 1) if server
              else "(WITH RECURSIVE g(k) AS (SELECT 1 UNION ALL SELECT"
              " k + 1 FROM g WHERE k < %d) SELECT k FROM g) AS g"
              % (copies - 1))
    pre = "profan." if server else ""
    for tbl, (by_id, cols) in tabs.items():
        if tbl in ("string", "baseline"):
            continue
        exprs = []
        for c in cols:
            if tbl == "run" and c == "id":
                exprs.append("t.id + g.k * %d" % block)
            elif tbl == "run" and c == "name":
                exprs.append("'r' || (t.id - 1 + g.k * %d)" % block)
            elif tbl == "run" and c == "content_hash":
                exprs.append(("lpad(to_hex(1000003 * (t.id - 1 + g.k * %d)),"
                              " 16, '0')" if server else
                              "printf('%%016x', 1000003 * (t.id - 1 + g.k"
                              " * %d))") % block)
            elif c == "run_id":
                exprs.append("t.run_id + g.k * %d" % block)
            elif c == "id" and by_id:
                exprs.append("t.id + g.k * (SELECT max(id) FROM %s\"%s\")"
                             % (pre, tbl))
            else:
                exprs.append('t."%s"' % c)
        names = ['"%s"' % c for c in cols]
        if not by_id and server:
            names.append("ord")        # a copy's rows in the same places
            exprs.append("t.ord")
        key = "id" if tbl == "run" else "run_id"
        out.append('INSERT INTO %s"%s"(%s) SELECT %s FROM %s"%s" t, %s'
                   ' WHERE t.%s <= %d' % (pre, tbl, ", ".join(names),
                                          ", ".join(exprs), pre, tbl,
                                          series, key, block))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profan")
    ap.add_argument("--runs", type=int, default=100000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--block", type=int, default=2000,
                    help="runs cloned by clone_runs, then repeated")
    ap.add_argument("--work", default=os.path.join(HERE, "out", "pgbig"))
    ap.add_argument("--keep", action="store_true",
                    help="leave the server running and the files")
    a = ap.parse_args()
    profan = os.path.abspath(a.profan)
    os.makedirs(a.work, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=a.work)
    run_dir = os.path.join(tmp, "sample")
    make_history.write_run(run_dir, 0)
    hist = os.path.join(tmp, "history.db")
    t0 = time.perf_counter()
    make_history.archive(profan, run_dir, hist, tmp)
    block = min(a.runs, a.block)
    if a.runs % block:
        sys.exit("--runs must be a multiple of --block")
    make_history.clone_runs(hist, block)
    tabs = catalogue(hist)
    srv = pgserver.PgServer().start()
    try:
        srv.psql("CREATE DATABASE big")
        url = srv.url("big")
        # the schema, by profan (a listing of the empty server)
        subprocess.run([profan, "runs", "--history", url], check=True,
                       capture_output=True)
        rows = copy_to_server(srv, "big", hist)
        print("%d runs cloned, %d rows copied to the server: %.1f s"
              % (block, rows, time.perf_counter() - t0))
        t0 = time.perf_counter()
        con = sqlite3.connect(hist)
        con.execute("PRAGMA journal_mode=OFF")
        con.execute("PRAGMA synchronous=OFF")
        for sql in replicate(tabs, block, a.runs // block, False):
            con.execute(sql)
        con.commit()
        con.close()
        print("local history of %d runs: %.1f s, %.0f MB"
              % (a.runs, time.perf_counter() - t0,
                 os.path.getsize(hist) / 1e6))
        t0 = time.perf_counter()
        subprocess.run([os.path.join(srv.bin, "psql"), "-X", "-q", "-v",
                        "ON_ERROR_STOP=1", "-h", srv.sock, "-U",
                        pgserver.SUPERUSER, "-d", "big", "-c",
                        ";\n".join(replicate(tabs, block, a.runs // block,
                                             True)) + ";\nANALYZE"],
                       check=True)
        print("server history of %d runs: %.1f s, %s"
              % (a.runs, time.perf_counter() - t0, srv.psql(
                  "SELECT pg_size_pretty(pg_database_size('big'))")[0][0]))
        for name, run in (("main", "r0"), ("late", "r%d" % (a.runs - 10))):
            subprocess.run([profan, "--db", hist, "baseline", "set", name,
                            run], check=True, capture_output=True)
        copy_to_server(srv, "big", hist, only={"baseline"})
        n_srv = srv.psql("SELECT count(*) FROM profan.run", "big")[0][0]
        if int(n_srv) != a.runs:
            sys.exit("the server holds %s runs" % n_srv)
        bad = 0
        for cmd in cmds(a.runs):
            loc, srvt, p2, diff = local_vs_server(profan, hist, url, cmd,
                                                  a.repeat)
            bad += len(diff)
            for p1, p3 in diff:
                print("DIFFERENT: %s\n--- local (exit %d)\n%s\n---"
                      " server (exit %d)\n%s%s"
                      % (" ".join(cmd), p1.returncode, p1.stdout[:600],
                         p3.returncode, p3.stdout[:600], p3.stderr))
            ml, ms = statistics.median(loc), statistics.median(srvt)
            print("%-62s local %.3f s, server %.3f s (x%.1f), exit %d"
                  % (" ".join(cmd), ml, ms, ms / ml, p2.returncode))
        if bad:
            sys.exit("%d answers differ between local and server" % bad)
        if a.keep:
            print("kept: --db %s --history '%s' (stop: pg_ctl -D %s stop)"
                  % (hist, url, srv.data))
    finally:
        if not a.keep:
            srv.cleanup()


if __name__ == "__main__":
    main()
