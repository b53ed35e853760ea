#!/usr/bin/env python3
"""query_plans.py — EXPLAIN QUERY PLAN of every named query and rule.

Prints, for each queries/*.sql and rules/*.sql, SQLite's plan on a
database (each parameter at its default, :run and :baseline the given
run), so that two schemas can be compared: a dropped or changed index
must leave no query with a worse plan (a SCAN where a SEARCH was).
With --diff OTHER_DB it prints only the statements whose plans differ.
With --statements it also covers the C code's statements/*.sql, each
statement of a file on its own, every ?N bound to the run (a statement
that reads a temp table or is a template gives an error line, the same
on both databases).

usage: python3 bench/query_plans.py --db DB [--run 1] [--diff DB2]
                                    [--statements]
"""
import argparse
import glob
import os
import re
import sqlite3

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PARAM = re.compile(r"^-- param: (\w+):\S+ =(.*)$")


def defaults(text, run):
    """{name: value} of a query's parameters at their defaults."""
    out = {"run": run, "baseline": run}
    for line in text.splitlines():
        m = PARAM.match(line)
        if not m:
            continue
        v = m.group(2).strip().split("  ")[0].strip()
        if v == "":
            out[m.group(1)] = None
        else:
            try:
                out[m.group(1)] = int(v)
            except ValueError:
                try:
                    out[m.group(1)] = float(v)
                except ValueError:
                    out[m.group(1)] = v
    return out


def plans(db, run):
    """{file: [plan lines]} of every named query and rule on db."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    res = {}
    for f in sorted(glob.glob(os.path.join(ROOT, "queries", "*.sql"))
                    + glob.glob(os.path.join(ROOT, "rules", "*.sql"))):
        text = open(f).read()
        args = defaults(text, run)
        names = set(re.findall(r":(\w+)", re.sub(r"--[^\n]*", "", text)))
        binds = {n: args.get(n) for n in names}
        key = os.path.relpath(f, ROOT)
        try:
            rows = con.execute("EXPLAIN QUERY PLAN " + text, binds).fetchall()
            res[key] = ["%s" % r[3] for r in rows]
        except sqlite3.Error as e:
            res[key] = ["error: %s" % e]
    con.close()
    return res


def split(text):
    """The statements of text, one by one (comments dropped)."""
    out, cur = [], ""
    for line in re.sub(r"--[^\n]*", "", text).splitlines(True):
        cur += line
        if sqlite3.complete_statement(cur):
            if cur.strip().rstrip(";").strip():
                out.append(cur.strip())
            cur = ""
    if cur.strip():
        out.append(cur.strip())
    return out


def statement_plans(db, run):
    """{file#n: [plan lines]} of every statement of statements/*.sql."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    res = {}
    for f in sorted(glob.glob(os.path.join(ROOT, "statements", "*.sql"))):
        for i, st in enumerate(split(open(f).read())):
            key = "%s#%d" % (os.path.relpath(f, ROOT), i + 1)
            nums = [int(n) for n in re.findall(r"\?(\d+)", st)]
            binds = [run] * (max(nums) if nums else st.count("?"))
            try:
                rows = con.execute("EXPLAIN QUERY PLAN " + st.rstrip(";"),
                                   binds).fetchall()
                res[key] = ["%s" % r[3] for r in rows]
            except (sqlite3.Error, sqlite3.Warning) as e:
                res[key] = ["error: %s" % e]
    con.close()
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--run", type=int, default=1)
    ap.add_argument("--diff")
    ap.add_argument("--statements", action="store_true")
    a = ap.parse_args()
    p = plans(a.db, a.run)
    if a.statements:
        p.update(statement_plans(a.db, a.run))
    if not a.diff:
        for k, v in p.items():
            print("== %s" % k)
            for line in v:
                print("   " + line)
        return
    q = plans(a.diff, a.run)
    if a.statements:
        q.update(statement_plans(a.diff, a.run))
    n = 0
    for k in p:
        if p[k] != q.get(k):
            n += 1
            print("== %s" % k)
            for line in sorted(set(p[k]) - set(q.get(k, []))):
                print("  - " + line)
            for line in sorted(set(q.get(k, [])) - set(p[k])):
                print("  + " + line)
    print("%d of %d plans differ" % (n, len(p)))


if __name__ == "__main__":
    main()
