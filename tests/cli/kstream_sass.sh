#!/bin/sh
# The stream kernel's instruction tables (sim/src/kernel/kstream.c: read_code, copy_code) are the
# committed listing of gpu_stream.cu (gpu/results/h200/stream_pass/gpu_stream.sass, cuobjdump -sass):
# every instruction to the last EXIT, in order, with its PC, opcode, guard predicate and the
# destination and source registers the Accel-Sim tracer reports — read from the listing by
# gpu/scripts/embed_sass.py's parser (kernels, parse_inst), not a second one. The guard's meaning
# (which lanes run it) is kstream.c's; this checks that every guarded instruction has one and the
# others none. Each row's last field is the stall count of the instruction's control code: bits
# 41-44 of the listing's second word (bits 105-108 of the 128-bit instruction). Exit 77 (skipped)
# without python3.
# usage: kstream_sass.sh SOURCE_DIR
src=$1
command -v python3 >/dev/null 2>&1 || { echo "no python3: skipped"; exit 77; }
python3 - "$src" <<'PY'
import re
import sys

src = sys.argv[1]
sys.path.insert(0, src + "/gpu/scripts")
import embed_sass  # noqa: E402

text = open(src + "/gpu/results/h200/stream_pass/gpu_stream.sass").read()
listing = embed_sass.kernels(text)
# The stall count by kernel and PC: the word on the line after each instruction's.
stall, fn = {}, None
lines = text.split("\n")
for i, line in enumerate(lines):
    if "Function :" in line:
        fn = line.split(":", 1)[1].strip()
    m = re.match(r"\s*/\*([0-9a-f]{4})\*/.*/\* 0x[0-9a-f]{16} \*/", line)
    c = re.search(r"/\* (0x[0-9a-f]{16}) \*/", lines[i + 1]) if m and i + 1 < len(lines) else None
    if c:
        stall[fn, int(m.group(1), 16)] = int(c.group(1), 16) >> 41 & 15
code = open(src + "/sim/src/kernel/kstream.c").read()
ROW = re.compile(r'\{0x([0-9a-f]{4}), "([^"]+)", "([^"]*)", (G_[A-Z0-9]+), (-?\d+), (\d+), \{([0-9, ]*)\}, (\d+)\},')
bad = 0
for table, name in (("read_code", "_Z13stream_kernelILb0EEvPK5uint4PS0_mjPj"),
                    ("copy_code", "_Z13stream_kernelILb1EEvPK5uint4PS0_mjPj")):
    body = code.split("static const sass %s[] = {" % table)[1].split("};")[0]
    rows = ROW.findall(body)
    if len(rows) != body.count("{0x"):
        sys.exit("FAIL: %s: a row not in the checked format" % table)
    lines = listing[name]
    last = max(i for i, (_, t) in enumerate(lines) if re.search(r"(^|\s)EXIT$", t))
    want = []
    for pc, text in lines[:last + 1]:
        pred = ""
        if text.startswith("@"):
            pred, text = text.split(None, 1)
        ins = embed_sass.parse_inst(pc, text)
        want.append((pc, ins["opcode"], pred, ins["dst"], ins["srcs"]))
    if len(rows) != len(want):
        print("FAIL: %s has %d instructions, the listing %d" % (table, len(rows), len(want)))
        bad += 1
        continue
    for (pc, op, pred, guard, dst, nsrc, srcs, st), w in zip(rows, want):
        srcs = [int(x) for x in srcs.replace(" ", "").split(",") if x] if int(nsrc) else []
        got = (int(pc, 16), op, pred, int(dst), srcs)
        if got != w:
            print("FAIL: %s %s: table %s, listing %s" % (table, pc, got, w))
            bad += 1
        if int(st) != stall.get((name, int(pc, 16))):
            print("FAIL: %s %s: stall %s, the control code's %s" % (table, pc, st, stall.get((name, int(pc, 16)))))
            bad += 1
        if (guard == "G_ALL") != (pred == "") and not (pred == "@P0" and op == "EXIT"):
            print("FAIL: %s %s: guard %s for predicate '%s'" % (table, pc, guard, pred))
            bad += 1
sys.exit(1 if bad else 0)
PY
rc=$?
[ $rc -eq 0 ] && echo "1 passed, 0 failed"
exit $rc
