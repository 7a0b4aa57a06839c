#!/usr/bin/env bash
# docs/tutorial.md re-run: every number in it is what its commands print, and
# docs/tutorial.zh.md holds the same commands, files and outputs.
#
# The tutorial's conventions (what this script reads):
# - A file block: a line `<!-- file: NAME -->` right before a fenced block; its
#   content is written to NAME in the scratch directory before any command runs.
# - A command block: a fenced block whose first line starts with `$ `; the rest
#   of the line is run by bash (pipefail) in the scratch directory, where
#   `tlbsim` is the built program and traces/, gpu/, sim/ are the repository's.
#   It must exit 0. Blocks run in document order (a later one may read a file an
#   earlier one wrote).
# - Its other lines are the expected output excerpt: compared with trailing
#   blanks removed, each must equal a whole output line; lines written next to
#   each other must be next to each other in the output, in that order; a line
#   `...` stands for any number of output lines (zero or more). An excerpt may
#   start and end anywhere in the output.
# Usage: tutorial.sh TLBSIM SOURCE_DIR
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
need python3
tlbsim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
python3 - "$tlbsim" "$src" "$work" <<'PY'
import os, re, subprocess, sys

tlbsim, src, tmp = sys.argv[1:4]
FENCE = re.compile(r"^```")


def blocks(text):
    """[(kind, key, lines)]: ('file', NAME, content) and ('cmd', COMMAND, expected)."""
    out, lines, i, pending = [], text.split("\n"), 0, None
    while i < len(lines):
        m = re.match(r"^<!-- file: (\S+) -->$", lines[i])
        if m:
            pending = m.group(1)
            i += 1
            continue
        if FENCE.match(lines[i]):
            j = i + 1
            while j < len(lines) and not FENCE.match(lines[j]):
                j += 1
            if j == len(lines):
                raise SystemExit("unterminated fenced block at line %d" % (i + 1))
            body = lines[i + 1:j]
            if pending is not None:
                out.append(("file", pending, body))
            elif body and body[0].startswith("$ "):
                out.append(("cmd", body[0][2:], [l.rstrip() for l in body[1:]]))
            i, pending = j + 1, None
            continue
        if lines[i].strip():
            pending = None
        i += 1
    return out


def matches(expected, actual):
    """Runs of expected lines between `...` appear in order, each run contiguous."""
    runs, cur = [], []
    for e in expected:
        if e == "...":
            if cur:
                runs.append(cur)
            cur = []
        else:
            cur.append(e)
    if cur:
        runs.append(cur)
    at = 0
    for run in runs:
        for k in range(at, len(actual) - len(run) + 1):
            if actual[k:k + len(run)] == run:
                at = k + len(run)
                break
        else:
            return run
    return None


def check(doc, workdir):
    """Runs every block of doc; returns a list of failures (empty when all agree)."""
    os.makedirs(workdir)
    for d in ("traces", "gpu", "sim"):
        os.symlink(os.path.join(src, d), os.path.join(workdir, d))
    fails, ncmd = [], 0
    for kind, key, body in blocks(doc):
        if kind == "file":
            with open(os.path.join(workdir, key), "w") as f:
                f.write("\n".join(body) + "\n")
            continue
        ncmd += 1
        script = 'set -o pipefail; tlbsim() { "$TUTORIAL_TLBSIM" "$@"; }\n' + key + "\n"
        env = dict(os.environ, TUTORIAL_TLBSIM=tlbsim, LC_ALL="C")
        p = subprocess.run(["bash", "-c", script], cwd=workdir, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        actual = [l.rstrip() for l in p.stdout.split("\n")]
        if p.returncode != 0:
            fails.append("$ %s\n  exit %d\n%s" % (key, p.returncode, p.stdout))
            continue
        bad = matches(body, actual)
        if bad is not None:
            fails.append("$ %s\n  expected (in this order, adjacent):\n    %s\n  got:\n%s"
                         % (key, "\n    ".join(bad), p.stdout))
    if ncmd == 0:
        fails.append("no command blocks found")
    return fails


en = open(os.path.join(src, "docs/tutorial.md")).read()
zh = open(os.path.join(src, "docs/tutorial.zh.md")).read()
passed = 0

fails = check(en, os.path.join(tmp, "en"))
for f in fails:
    print("FAIL: docs/tutorial.md:", f)
if fails:
    sys.exit(1)
ncmd = sum(1 for b in blocks(en) if b[0] == "cmd")
print("docs/tutorial.md: %d command blocks agree with their output" % ncmd)
passed += ncmd

# The translation holds the very same blocks (commands, files, outputs), in order.
be, bz = blocks(en), blocks(zh)
if be != bz:
    for k in range(max(len(be), len(bz))):
        a = be[k] if k < len(be) else None
        b = bz[k] if k < len(bz) else None
        if a != b:
            print("FAIL: docs/tutorial.zh.md block %d differs from docs/tutorial.md's:\n  en: %r\n  zh: %r"
                  % (k + 1, a, b))
            break
    sys.exit(1)
print("docs/tutorial.zh.md: the same %d blocks" % len(be))
passed += 1

# The check can fail: one digit changed in the first command block's output (the
# document up to that block re-run).
lines = en.split("\n")
start = next(i for i, l in enumerate(lines) if l.startswith("$ tlbsim"))
k = next(i for i in range(start + 1, len(lines)) if re.search(r"[0-9]", lines[i]))
lines[k] = re.sub(r"[0-9]", lambda m: str((int(m.group(0)) + 1) % 10), lines[k], count=1)
end = next(i for i in range(k, len(lines)) if FENCE.match(lines[i]))
if not check("\n".join(lines[:end + 1]), os.path.join(tmp, "perturbed")):
    print("FAIL: a perturbed output line still passed:", lines[k])
    sys.exit(1)
print("a perturbed number is caught")
passed += 1
print("%d passed, 0 failed" % passed)
PY
