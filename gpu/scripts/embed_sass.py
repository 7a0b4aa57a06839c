#!/usr/bin/env python3
"""Turns `cuobjdump -sass` of gpu_embed.cu.o into sim/src/exp/gpu_embed_sass.c: the
instructions every warp of each embed kernel executes, as the NVBit tracer of
Accel-Sim (tracer version 4) reports them, with the role of each memory
instruction (which ids, rows or output words its lanes address).

usage: embed_sass.py SASS.txt RES_USAGE.txt "nvcc version line" > gpu_embed_sass.c
       embed_sass.py --encodings SASS.txt CUBIN
         (exit 0 when every embed kernel's machine code in CUBIN, e.g. from
         nvcc -cubin -arch=sm_90 gpu/src/gpu_embed.cu, is the code SASS.txt lists)

Operands as the tracer sees them (util/tracer_nvbit/tracer_tool/tracer_tool.cu):
operand 0 is the destination when it is a register; every other register
operand and every memory operand's address register is a source, in operand
order; RZ is register 255; predicates, uniform registers and constant-bank
operands are not reported; the immediate is the last integer immediate.

Roles come from data flow, not from the order of the instructions (ptxas
reorders the loads): a load whose address depends on no loaded value is an id
load, its step k the address offset / (8 * rows per step); a load whose
address depends on exactly one id load is a row load of that step, its part
the offset / 256; each store is an output store, its part the offset / 256.
Anything the trace writer cannot reproduce (a branch or predicate before the
EXIT, local or shared memory, a load depending on two ids) is an error.
"""
import re
import sys

INST = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
FUNC = re.compile(r"Function : (\S+)")
EMBED = re.compile(r"embed_kernelILj(\d+)ELj(\d+)EE")
REG = re.compile(r"^[-|~!]*R(\d+|Z)(\..*)?\|?$")
MREF = re.compile(r"^(?:desc\[[^\]]*\])?\[(?:R(\d+|Z)(\.64|\.U32)?)?(?:\+?(-?0x[0-9a-f]+|-?\d+))?(?:\+UR\d+)?\]$")
IMM = re.compile(r"^-?(0x[0-9a-f]+|\d+)$")


class Fail(Exception):
    pass


def split_operands(text):
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def reg_num(tok):
    m = REG.match(tok)
    if not m:
        return None
    return 255 if m.group(1) == "Z" else int(m.group(1))


def parse_inst(pc, text):
    if text.startswith("@"):
        raise Fail(f"{pc:04x}: predicated instruction '{text}'")
    parts = text.split(None, 1)
    opcode, ops = parts[0], split_operands(parts[1]) if len(parts) > 1 else []
    dst, srcs, imm, mref = -1, [], 0, None
    for i, op in enumerate(ops):
        m = MREF.match(op)
        if op.startswith("[") or op.startswith("desc["):
            if not m:
                raise Fail(f"{pc:04x}: memory operand '{op}' not understood")
            ra = 255 if m.group(1) in (None, "Z") else int(m.group(1))
            off = int(m.group(3), 0) if m.group(3) else 0
            mref = (ra, m.group(2) == ".64", off)
            srcs.append(ra)
            continue
        r = reg_num(op)
        if r is not None:
            if i == 0:
                dst = r
            else:
                srcs.append(r)
            continue
        if IMM.match(op):
            imm = int(op, 0)
        # predicates, uniform registers, c[..][..], SR_* and float immediates: not reported
    return {"pc": pc, "opcode": opcode, "ops": ops, "dst": dst, "srcs": srcs, "imm": imm, "mref": mref}


def kernels(sass):
    cur, out = None, {}
    for line in sass.splitlines():
        f = FUNC.search(line)
        if f:
            cur = f.group(1)
            out[cur] = []
            continue
        m = INST.search(line)
        if m and cur:
            out[cur].append((int(m.group(1), 16), m.group(2).strip()))
    return out


def written(ins):
    """Registers the instruction really writes (for the data flow)."""
    ops, op = ins["ops"], ins["opcode"]
    if op.split(".")[0] in ("ISETP", "FSETP", "DSETP", "HSETP2", "PSETP", "PLOP3", "UISETP"):
        return []  # predicates only
    first = None
    for o in ops:
        r = reg_num(o)
        if r is not None:
            first = r
            break
        if not re.match(r"^!?U?P(\d|T)$", o):
            break  # the first operand is neither a predicate nor a register
    if first is None or first == 255 or ins["mref"] and op.startswith("ST"):
        return []
    wide = "WIDE" in op or op.startswith("LDG") and ".64" in op or op.startswith("MOV.64")
    return [first, first + 1] if wide else [first]


def roles(name, r_bytes, l_ids, insts):
    lpr = min(32, r_bytes // 8)
    rps = 32 // lpr
    parts = r_bytes // 256 if r_bytes > 256 else 1
    steps = l_ids // rps
    tags = {}
    id_base = None
    seen_ids, seen_rows, seen_out = set(), set(), set()
    for ins in insts:
        op = ins["opcode"]
        src_tags = set()
        for s in ins["srcs"]:
            src_tags |= tags.get(s, set())
        ins["role"], ins["k"], ins["part"] = "GPU_SASS_ALU", 0, 0
        if ins["mref"]:
            if not (op.startswith("LDG") or op.startswith("STG")):
                raise Fail(f"{name} {ins['pc']:04x}: {op}: only global loads and stores can be traced")
            ra, pair, off = ins["mref"]
            addr = set(tags.get(ra, set())) | (tags.get(ra + 1, set()) if pair else set())
            ids = {t for t in addr if t[0] == "id"}
            if op.startswith("STG"):
                ins["role"], ins["part"] = "GPU_SASS_OUT", off // 256
                key = off // 256
                if key in seen_out or key >= parts:
                    raise Fail(f"{name} {ins['pc']:04x}: output store of part {key} again or out of range")
                seen_out.add(key)
            elif not addr:
                if id_base is None:
                    id_base = ra
                if ra != id_base or off % (8 * rps):
                    raise Fail(f"{name} {ins['pc']:04x}: id load not at the ids' base + k * {8 * rps}")
                k = off // (8 * rps)
                if k in seen_ids or k >= steps:
                    raise Fail(f"{name} {ins['pc']:04x}: id load of step {k} again or out of range")
                seen_ids.add(k)
                ins["role"], ins["k"] = "GPU_SASS_ID", k
                for w in written(ins):
                    tags[w] = {("id", k)}
                continue
            elif len(ids) == 1:
                k = next(iter(ids))[1]
                key = (k, off // 256)
                if key in seen_rows or off % 256 or key[1] >= parts:
                    raise Fail(f"{name} {ins['pc']:04x}: row load {key} again or at offset {off}")
                seen_rows.add(key)
                ins["role"], ins["k"], ins["part"] = "GPU_SASS_ROW", k, off // 256
                for w in written(ins):
                    tags[w] = {("row",)}
                continue
            else:
                raise Fail(f"{name} {ins['pc']:04x}: a load whose address depends on {sorted(ids)}")
        for w in written(ins):
            tags[w] = src_tags
        # an id register redefined while more id loads follow would break the offsets
        if id_base is not None and id_base in written(ins) and len(seen_ids) < steps:
            raise Fail(f"{name} {ins['pc']:04x}: the ids' base register is rewritten between id loads")
    if len(seen_ids) != steps or len(seen_rows) != steps * parts or len(seen_out) != parts:
        raise Fail(f"{name}: {len(seen_ids)} id loads, {len(seen_rows)} row loads, {len(seen_out)} stores; "
                   f"want {steps}, {steps * parts}, {parts}")


def straight_line(name, lines):
    out = []
    for pc, text in lines:
        ins = parse_inst(pc, text)
        op = ins["opcode"]
        if op.split(".")[0] in ("BRA", "BRX", "JMP", "CALL", "RET", "BSSY", "BSYNC", "WARPSYNC", "BAR", "YIELD"):
            raise Fail(f"{name} {pc:04x}: '{text}' before EXIT: the writer handles straight-line kernels only")
        out.append(ins)
        if op == "EXIT":
            return out
    raise Fail(f"{name}: no EXIT")


# ---- checking the roles: the kernel's address arithmetic run on concrete values ----

M32 = 0xFFFFFFFF
PARAMS = {"table": 0x7F0000000000, "ids": 0x7F2000200000, "out": 0x7F2000A00000}  # c[0x0][0x210..0x227]


class Lane:
    """One lane's registers; None is a value the check does not follow (a
    loaded row word, a shuffle)."""

    def __init__(self, tid, ctaid, uregs, preds_u):
        self.r, self.p = {}, {}
        self.tid, self.ctaid, self.u, self.up = tid, ctaid, uregs, preds_u

    def get(self, tok):
        neg = tok.startswith("-")
        inv = tok.startswith("~")
        t = tok.lstrip("-~|").rstrip("|").split(".")[0]
        if t == "RZ" or t == "URZ":
            v = 0
        elif re.match(r"^R\d+$", t):
            v = self.r.get(int(t[1:]))
        elif re.match(r"^UR\d+$", t):
            v = self.u.get(int(t[2:]))
        elif t.startswith("c["):
            m = re.match(r"c\[0x0\]\[(0x[0-9a-f]+)\]", tok)
            v = cbank(int(m.group(1), 16)) if m else None
        elif IMM.match(t):
            v = int(t, 0) & M32
        else:
            raise Fail(f"operand '{tok}' not understood")
        if v is None:
            return None
        if inv:
            v = ~v & M32
        if neg:
            v = -v & M32
        return v

    def pred(self, tok):
        n = tok.startswith("!")
        t = tok.lstrip("!")
        v = True if t in ("PT", "UPT") else (self.up if t.startswith("UP") else self.p).get(int(t.lstrip("UP")), False)
        return (not v) if n else v

    def set(self, reg, v):
        if reg != 255:
            self.r[reg] = None if v is None else v & M32


def cbank(off):
    words = {}
    for i, key in enumerate(("table", "ids", "out")):
        words[0x210 + 8 * i] = PARAMS[key] & M32
        words[0x214 + 8 * i] = PARAMS[key] >> 32
    words[0x28], words[0x208], words[0x20C] = 0xFFF000, 0, 0
    return words.get(off)


def lop3(a, b, c, lut):
    out = 0
    for bit in range(32):
        idx = (a >> bit & 1) << 2 | (b >> bit & 1) << 1 | (c >> bit & 1)
        out |= (lut >> idx & 1) << bit
    return out


def prmt(a, sel, b):
    by = [(a >> (8 * i)) & 0xFF for i in range(4)] + [(b >> (8 * i)) & 0xFF for i in range(4)]
    out = 0
    for i in range(4):
        nib = sel >> (4 * i) & 0xF
        x = by[nib & 7]
        if nib & 8:
            x = 0xFF if x & 0x80 else 0
        out |= x << (8 * i)
    return out


def step(ln, ins, mem):
    """Runs one instruction on one lane; returns the address of a memory
    instruction (or None)."""
    op, ops = ins["opcode"], ins["ops"]
    base = op.split(".")[0]
    regs = [o for o in ops if not re.match(r"^!?U?P(\d|T)$", o)]
    preds = [o for o in ops if re.match(r"^!?U?P(\d|T)$", o)]
    g = ln.get
    if op == "EXIT":
        return None
    if base in ("LDG", "STG"):
        mref = next(o for o in ops if "[" in o and not o.startswith("c["))
        ra, pair, off = ins["mref"]
        lo, hi = ln.r.get(ra), ln.r.get(ra + 1) if pair else 0
        addr = None if lo is None or hi is None else ((hi << 32 | lo) + off) & (2**64 - 1)
        if base == "LDG":
            d = reg_num(ops[0])
            v = mem(addr) if addr is not None else None
            ln.set(d, None if v is None else v & M32)
            if ".64" in op:
                ln.set(d + 1, None if v is None else v >> 32)
        return addr if addr is not None else "unknown"
    if base in ("ULDC", "UMOV", "S2UR"):
        d = int(ops[0].lstrip("UR"))
        if base == "S2UR":
            v = {"SR_CTAID.X": ln.ctaid}.get(ops[1])
            ln.u[d] = v
        elif base == "UMOV":
            ln.u[d] = g(ops[1])
        else:
            m = re.match(r"c\[0x0\]\[(0x[0-9a-f]+)\]", ops[1])
            o = int(m.group(1), 16)
            ln.u[d] = cbank(o)
            if ".64" in op:
                ln.u[d + 1] = cbank(o + 4)
        return None
    d = reg_num(regs[0]) if regs else None
    if base == "S2R":
        ln.set(d, {"SR_TID.X": ln.tid, "SR_CTAID.X": ln.ctaid, "SR_LANEID": ln.tid % 32}.get(ops[1]))
        return None
    if base == "LDC":
        ln.set(d, g(ops[1]))
        return None
    if base == "SHFL":
        ln.set(reg_num(ops[1]), None)
        return None
    src = [g(o) for o in regs[1:]]
    if any(v is None for v in src):
        if "WIDE" in op:
            ln.set(d + 1, None)
        ln.set(d, None)
        return None
    if base == "MOV":
        ln.set(d, src[0])
    elif base == "VIADD":
        ln.set(d, src[0] + src[1])
    elif base == "IADD3":
        cin = sum(ln.pred(p) for p in preds[-2:]) if op.endswith(".X") else 0
        outs = [p for p in ops[1:3] if re.match(r"^U?P\d$", p)] if not op.endswith(".X") else []
        tot = src[0] + src[1] + src[2] + cin
        ln.set(d, tot)
        carry = tot >> 32
        for i, p in enumerate(outs):
            ln.p[int(p[1:])] = carry > i
    elif base == "IMAD":
        if "WIDE" in op:
            a, b = src[0], src[1]
            if ".U32" not in op:
                a, b = (a - (1 << 32) if a >> 31 else a), (b - (1 << 32) if b >> 31 else b)
            c = reg_num(regs[3])
            hi = 0 if c in (None, 255) else ln.r.get(c + 1)
            if hi is None:
                ln.set(d, None)
                ln.set(d + 1, None)
                return None
            v = (a * b + (hi << 32 | src[2])) & (2**64 - 1)
            ln.set(d, v & M32)
            ln.set(d + 1, v >> 32)
        elif ".HI" in op:
            ln.set(d, (src[0] * src[1] >> 32) + src[2])
        else:
            cin = ln.pred(preds[-1]) if op.endswith(".X") and preds else 0
            ln.set(d, src[0] * src[1] + src[2] + cin)
    elif base == "LOP3":
        ln.set(d, lop3(src[0], src[1], src[2], src[3]))
    elif base == "PRMT":
        ln.set(d, prmt(src[0], src[1], src[2]))
    elif base == "SHF":
        lo, sh, hi = src[0], src[1] & 63, src[2]
        w = hi << 32 | lo
        if ".L" in op:
            w = (w << sh) & (2**64 - 1)
        elif ".S32" in op or ".S64" in op:
            w = (w - (1 << 64) if w >> 63 else w) >> sh & (2**64 - 1)
        else:
            w >>= sh
        ln.set(d, w >> 32 if ".HI" in op else w & M32)
    elif base == "LEA":
        if ".HI" in op:  # LEA.HI.X d, lo, b, hi, s, P
            sh = src[3]
            cin = ln.pred(preds[-1]) if ".X" in op and preds else 0
            ln.set(d, ((src[2] << 32 | src[0]) << sh >> 32) + src[1] + cin)
        else:  # LEA d, P, a, b, s
            v = (src[0] << src[2]) + src[1]
            ln.set(d, v)
            outs = [p for p in ops[1:2] if re.match(r"^U?P\d$", p)]
            for p in outs:
                ln.p[int(p[1:])] = (v >> 32) & 1 == 1
    else:
        ln.set(d, None)  # not followed: fine unless an address depends on it
    return None


def check(name, r_bytes, l_ids, insts, bags=(0, 1, 7, 8, 1029)):
    """Runs the kernel's instructions on every lane of a few warps and
    compares each memory instruction's addresses with the model's
    (sim/include/tlbsim/gpu_embed.h), for ids spread over a 2^31-row table."""
    import random
    lpr = min(32, r_bytes // 8)
    rps = 32 // lpr
    rnd = random.Random(1)
    ids = {}

    def mem(addr):
        if PARAMS["ids"] <= addr < PARAMS["out"]:
            i = (addr - PARAMS["ids"]) // 8
            return ids.setdefault(i, rnd.randrange(1 << 31 if r_bytes <= 64 else 1 << 29))
        return None

    for bag in bags:
        ctaid, warp = bag // 8, bag % 8
        for lane in range(32):
            ln = Lane(warp * 32 + lane, ctaid, {}, {})
            for ins in insts:
                a = step(ln, ins, mem)
                if ins["role"] == "GPU_SASS_ALU":
                    continue
                k, p = ins["k"], ins["part"]
                idi = bag * l_ids + k * rps + lane // lpr
                if ins["role"] == "GPU_SASS_ID":
                    want = PARAMS["ids"] + 8 * idi
                elif ins["role"] == "GPU_SASS_ROW":
                    want = PARAMS["table"] + mem(PARAMS["ids"] + 8 * idi) * r_bytes + p * 256 + (lane % lpr) * 8
                else:
                    want = PARAMS["out"] + bag * r_bytes + p * 256 + (lane % lpr) * 8
                if a != want:
                    got = a if isinstance(a, str) else hex(a)
                    raise Fail(f"{name} {ins['pc']:04x} {ins['opcode']}: bag {bag} lane {lane} addresses {got}, "
                               f"the model {hex(want)} ({ins['role']} k={k} part={p})")


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def cubin_texts(path):
    """The .text.<function> sections of an ELF cubin."""
    import struct
    d = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
    stro = secs[shstrndx][4]
    out = {}
    for sec in secs:
        name = d[stro + sec[0]:d.index(b"\0", stro + sec[0])].decode()
        if name.startswith(".text."):
            out[name[6:]] = d[sec[4]:sec[4] + sec[5]]
    return out


def encodings(sass_path, cubin_path):
    import struct
    sass, code = open(sass_path).read(), cubin_texts(cubin_path)
    funcs = re.split(r"Function : ", sass)[1:]
    bad = 0
    for f in funcs:
        name = f.split()[0]
        if not EMBED.search(name):
            continue
        words = [int(x, 16) for x in re.findall(r"/\* (0x[0-9a-f]{16}) \*/", f.split("..........")[0])]
        listed = b"".join(struct.pack("<Q", w) for w in words)
        if code.get(name) != listed:
            print(f"embed_sass.py: {name}: the machine code nvcc builds is not the code {sass_path} lists; "
                  "regenerate it with cuobjdump (gpu/scripts/device_sweep.sh does)", file=sys.stderr)
            bad = 1
    for name in code:
        if EMBED.search(name) and name not in sass:
            print(f"embed_sass.py: {name} is not in {sass_path}", file=sys.stderr)
            bad = 1
    sys.exit(bad)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--encodings":
        encodings(sys.argv[2], sys.argv[3])
    if len(sys.argv) != 4:
        sys.exit(__doc__.split("\n\n")[1])
    sass, res, origin = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
    nregs = {m.group(1): int(m.group(2)) for m in re.finditer(r"Function (\S+):\s*\n\s*REG:(\d+)", res)}
    found = []
    for name, lines in kernels(sass).items():
        m = EMBED.search(name)
        if not m:
            continue
        r_bytes, l_ids = int(m.group(1)), int(m.group(2))
        try:
            insts = straight_line(name, lines)
            roles(name, r_bytes, l_ids, insts)
            check(name, r_bytes, l_ids, insts)
        except Fail as e:
            sys.exit(f"embed_sass.py: {e}")
        if name not in nregs:
            sys.exit(f"embed_sass.py: no register count for {name} in {sys.argv[2]}")
        found.append((r_bytes, l_ids, name, insts))
    if not found:
        sys.exit("embed_sass.py: no embed_kernel in the SASS")
    found.sort()
    print("/* Generated by gpu/scripts/embed_sass.py from cuobjdump -sass and -res-usage of")
    print(f" * gpu_embed.cu.o ({origin}, sm_90): do not edit; regenerate when the")
    print(" * kernels or the toolkit change (gpu/scripts/device_sweep.sh does, and says")
    print(" * whether the result matches this file). */")
    print('#include "tlbsim/gpu_accel.h"')
    for i, (r_bytes, l_ids, name, insts) in enumerate(found):
        print(f"\n/* {name}: {len(insts)} instructions per warp */")
        print(f"static const gpu_sass_inst k{i}[] = {{")
        for ins in insts:
            srcs = ins["srcs"][:5]
            if len(ins["srcs"]) > 5:
                sys.exit(f"embed_sass.py: {name} {ins['pc']:04x}: more than 5 source registers")
            src = ", ".join(str(s) for s in srcs) or "0"
            print(f"    {{0x{ins['pc']:04x}, {c_string(ins['opcode'])}, {ins['dst']}, {len(srcs)}, {{{src}}}, "
                  f"{ins['imm']}, {ins['role']}, {ins['k']}, {ins['part']}}},")
        print("};")
    print("\nconst gpu_sass_kernel gpu_embed_sass[] = {")
    for i, (r_bytes, l_ids, name, insts) in enumerate(found):
        print(f"    {{{c_string(name)}, {r_bytes}, {l_ids}, {nregs[name]}, {len(insts)}, k{i}}},")
    print("};")
    print(f"const unsigned gpu_embed_sass_count = {len(found)};")
    print(f"const char gpu_embed_sass_origin[] = {c_string(origin)};")


if __name__ == "__main__":
    main()
