#!/bin/sh
# style.sh — the mechanical part of profan's C style (CONTRIBUTING.md):
#   - no tab characters;
#   - lines of at most 80 columns;
#   - SQLite-style conditions: `if( x )`, `while( x )`, `switch( x )`
#     (a space inside the parentheses, none before them);
#   - no function longer than 120 lines, except pickle.c:step and
#     jscan.c:run (state machines kept whole);
#   - layering: a file in src/LAYER/ includes only "LAYER/..." headers of
#     its own layer or of a layer listed before it in LAYERS below (the
#     order of CONTRIBUTING.md's Layout), and always as "folder/file.h";
#   - no SQL over one line in C: under src/, a string literal (or a run
#     of adjacent literals, as C concatenates them) whose text starts with
#     SELECT, INSERT, UPDATE, DELETE, CREATE, WITH, DROP, REPLACE or ALTER
#     must fit on one line; a longer statement lives in
#     statements/NAME.sql and the C loads it with db_statement("NAME")
#     (CONTRIBUTING.md, "SQL out of C");
#   - no cycle between files (x.c and x.h taken as one file x): x uses y
#     when x includes y.h, or includes a header declaring a function that
#     y.c defines and names that function (a header shared by several .c
#     files hides no dependency).  No chain of uses may lead from a file
#     back to itself.  Checked over all of src/, whatever FILE arguments
#     are given.
# Checks the C files of src/, tests/, fuzz/ and tools/.  Prints one line
# per problem (FILE:LINE: what) and exits 1 when there is any.
# scripts/style-known.txt lists problems known and not yet fixed, as
# "FILE RULE" (RULE: width, length, sql); a listed file is not checked
# for that rule.  Remove the line once the file is fixed.
# Usage: sh scripts/style.sh [FILE...]
set -eu
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then
  FILES="$*"
else
  FILES=$(ls src/*/*.c src/*/*.h tests/*.c fuzz/*.c fuzz/*.h tools/*.c \
          2>/dev/null)
fi
# shellcheck disable=SC2086
exec python3 - scripts/style-known.txt $FILES <<'PY'
import re, sys

known = set()
try:
    for line in open(sys.argv[1]):
        line = line.split('#')[0].split()
        if len(line) == 2:
            known.add((line[0], line[1]))
except FileNotFoundError:
    pass

ALLOWED_LONG = {("pickle.c", "step"), ("jscan.c", "run")}
LAYERS = ["core", "input", "trace", "memory", "comm", "analysis", "history",
          "ingest", "server", "report", "cli"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
COND_NO_SPACE = re.compile(r'\b(if|while|switch)\((?! )')
COND_SPACE_BEFORE = re.compile(r'\b(if|while|switch) \(')
FUNC = re.compile(r'^[A-Za-z_][\w \*]*?\b(\w+)\s*\(')
problems = []

def code_part(line):
    """The line without string literals and comments (roughly)."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    line = re.sub(r'/\*.*?\*/', '', line)
    line = re.sub(r'//.*', '', line)
    if line.lstrip().startswith('*') or line.lstrip().startswith('/*'):
        return ''
    return line

SQL_START = re.compile(r'\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|WITH|DROP|'
                       r'REPLACE|ALTER)\b', re.I)
# SQL that does not start a statement (a column list, a subquery built
# into a larger one): two of these keywords, upper case as in our SQL
SQL_WORDS = re.compile(r'\b(SELECT|FROM|WHERE|JOIN|GROUP BY|ORDER BY|'
                       r'INSERT INTO|VALUES|UNION)\b')

def is_sql(s):
    return SQL_START.match(s) or len(set(SQL_WORDS.findall(s))) >= 2

def literal_runs(text):
    """(first line, last line, text) of each run of adjacent string
    literals (only blanks and comments between them) in C source."""
    i, n, line, run = 0, len(text), 1, None
    while i < n:
        c = text[i]
        if c == '\n':
            line += 1
            i += 1
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j
            line += text.count('\n', i, j)
            i = j + 2
        elif text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            if c == '"':
                run = (run[0], line, run[2] + text[i+1:j]) if run \
                    else (line, line, text[i+1:j])
            elif run:
                yield run
                run = None
            i = j + 1
        elif c in ' \t\r':
            i += 1
        else:
            if run:
                yield run
                run = None
            if c == '#':            # a preprocessor line: #include "x.h"
                j = text.find('\n', i)
                i = n if j < 0 else j
            else:
                i += 1
    if run:
        yield run

for f in sys.argv[2:]:
    if f.startswith('src/') and f.endswith(('.c', '.h')) \
            and (f, 'sql') not in known:
        for a, b, s in literal_runs(open(f, encoding='utf-8',
                                        errors='replace').read()):
            if b > a and is_sql(s):
                problems.append("%s:%d: SQL over %d lines in C (move it to "
                                "statements/NAME.sql, db_statement())"
                                % (f, a, b - a + 1))
    lines = open(f, encoding='utf-8', errors='replace').read().split('\n')
    base = f.rsplit('/', 1)[-1]
    start = name = None
    for i, l in enumerate(lines, 1):
        if '\t' in l:
            problems.append("%s:%d: tab character" % (f, i))
        if len(l) > 80 and (f, 'width') not in known:
            problems.append("%s:%d: %d columns (at most 80)" % (f, i, len(l)))
        inc = INCLUDE.match(l)
        if inc:
            target = inc.group(1)
            layer = f.split('/')[1] if f.startswith('src/') else None
            tl = target.split('/')[0] if '/' in target else None
            if tl not in LAYERS and not f.startswith(('fuzz/', 'tests/')):
                problems.append('%s:%d: include "%s" as "folder/file.h"'
                                % (f, i, target))
            elif tl in LAYERS and layer in LAYERS and LAYERS.index(tl) > LAYERS.index(layer):
                problems.append("%s:%d: %s/ includes %s, a layer above it"
                                % (f, i, layer, target))
        c = code_part(l)
        if COND_NO_SPACE.search(c) or COND_SPACE_BEFORE.search(c):
            problems.append("%s:%d: write conditions as `if( x )`" % (f, i))
        # function length: from the line that opens a definition to the
        # closing brace in column 0
        if start is None:
            m = FUNC.match(c)
            if m and not c.rstrip().endswith(';') and '=' not in c.split('(')[0]:
                j = i - 1
                while j < len(lines) and \
                        not code_part(lines[j]).rstrip().endswith(('{', ';')):
                    j += 1
                if j < len(lines) and code_part(lines[j]).rstrip().endswith('{'):
                    start, name = i, m.group(1)
        elif l.startswith('}'):
            n = i - start + 1
            if n > 120 and (base, name) not in ALLOWED_LONG \
                    and (f, 'length') not in known:
                problems.append("%s:%d: %s is %d lines (at most 120)"
                                % (f, start, name, n))
            start = None

# ---- no cycle between files (see the head of this script)
import glob, os
SRC = sorted(glob.glob('src/*/*.c') + glob.glob('src/*/*.h'))
DEF = re.compile(r'^(?!static\b)[A-Za-z_][\w \*]*?\b(\w+)\s*\(')
DECL = re.compile(r'^(?!static\b|typedef\b|#)[A-Za-z_][\w \*]*?\b(\w+)\s*\(')
def stem(path):
    return path[len('src/'):].rsplit('.', 1)[0]
def body(path):
    text = open(path, encoding='utf-8', errors='replace').read()
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'),
                  text, flags=re.S)
    return text
texts = {f: body(f) for f in SRC}
definer = {}                    # function -> stem of the .c defining it
for f in SRC:
    if f.endswith('.c'):
        for l in texts[f].split('\n'):
            m = DEF.match(l)
            if m and not l.rstrip().endswith(';'):
                definer.setdefault(m.group(1), stem(f))
declared = {}                   # header stem -> functions it declares
for f in SRC:
    if f.endswith('.h'):
        declared[stem(f)] = {m.group(1) for l in texts[f].split('\n')
                             for m in [DECL.match(l)] if m}
graph = {}
for f in SRC:
    s0 = stem(f)
    uses = graph.setdefault(s0, set())
    words = set(re.findall(r'\w+', texts[f]))
    for l in texts[f].split('\n'):
        inc = INCLUDE.match(l)
        if not inc or not inc.group(1).endswith('.h'):
            continue
        h = inc.group(1)[:-2]
        if h not in declared:
            continue
        if os.path.exists('src/' + h + '.c'):
            uses.add(h)
        for fn in declared[h] & words:
            if fn in definer:
                uses.add(definer[fn])
    uses.discard(s0)
state, stack = {}, []
def visit(n):
    state[n] = 1
    stack.append(n)
    for t in sorted(graph.get(n, ())):
        if state.get(t) == 1:
            problems.append("src/%s: include cycle %s"
                            % (t, " -> ".join(stack[stack.index(t):] + [t])))
        elif t not in state:
            visit(t)
    stack.pop()
    state[n] = 2
for n in sorted(graph):
    if n not in state:
        visit(n)

for p in problems:
    print(p)
if problems:
    print("style: %d problem%s" % (len(problems), "" if len(problems) == 1
                                    else "s"))
    sys.exit(1)
print("style: %d files clean" % (len(sys.argv) - 2))
PY
