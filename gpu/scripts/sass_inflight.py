#!/usr/bin/env python3
"""How many loads a kernel's machine code keeps in flight, from its SASS.

Reads `cuobjdump --dump-sass` output and, for each function whose name
contains PATTERN, walks its instructions in order: every LDG starts a
load whose value lives in its destination register pair; the first later
instruction that reads either register (or writes it, or is a branch) ends
the wait. The loads issued before that point are in flight together.
Prints, per function, the loads outstanding each time the code first waits
for one of them, in program order: "8" for a loop that issues a group of 8
loads before using any; "2 6" for one that waits for 2 before issuing 6. Standard library
only.

    cuobjdump --dump-sass gpu_gather.cu.o | gpu/scripts/sass_inflight.py gather_kernel
    gpu/scripts/sass_inflight.py --self-test
"""
import re
import sys

INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
REG = re.compile(r"\bR(\d+)\b")


def functions(text):
    """(name, [instruction text]) for each function in the dump."""
    name, body = None, []
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            if name:
                yield name, body
            name, body = m.group(1), []
            continue
        m = INSN.search(line)
        if m and name:
            body.append(m.group(2))
    if name:
        yield name, body


def operands(insn):
    """(opcode, destination registers, source registers) of one instruction."""
    insn = re.sub(r"^@!?P\w+\s+", "", insn)
    op, _, rest = insn.partition(" ")
    parts = [p.strip() for p in rest.split(",")]
    if not parts or not parts[0]:
        return op, set(), set()
    dst = set(int(r) for r in REG.findall(parts[0])) if not op.startswith(("ST", "BRA", "RED", "ATOM")) else set()
    src = set(int(r) for p in (parts if op.startswith(("ST", "RED")) else parts[1:]) for r in REG.findall(p))
    return op, dst, src


def in_flight(body):
    """Loads outstanding each time the code first waits for one of them: one
    number per burst of LDGs issued back to back before any use."""
    pending = []  # register pairs of loads not yet used
    bursts, issued = [], False
    for insn in body:
        op, dst, src = operands(insn)
        ends = op.startswith(("BRA", "EXIT", "BAR", "RET", "CALL"))
        used = [regs for regs in pending if ends or regs & src or regs & dst]
        if used and issued:
            bursts.append(len(pending))
            issued = False
        pending = [regs for regs in pending if not any(regs is u for u in used)]
        if op.startswith("LDG"):
            pending.append({min(dst), min(dst) + 1} if dst else set())
            issued = True
    if pending and issued:
        bursts.append(len(pending))
    return bursts


def self_test():
    sass = """
        Function : k
        /*0000*/  LDG.E.64 R2, desc[UR4][R2.64] ;
        /*0010*/  LDG.E.64 R4, desc[UR4][R4.64] ;
        /*0020*/  IADD3 R8, P0, PT, R2, R4, RZ ;
        /*0030*/  LDG.E.64 R6, desc[UR4][R6.64] ;
        /*0040*/  IADD3 R8, P0, PT, R8, R6, RZ ;
        /*0050*/  EXIT ;
    """
    (name, body), = list(functions(sass))
    assert name == "k"
    got = in_flight(body)
    assert got == [2, 1], got
    print("sass_inflight.py: self-test passed")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    found = 0
    for name, body in functions(sys.stdin.read()):
        if sys.argv[1] in name:
            found += 1
            counts = in_flight(body)
            print(f"{name}: {' '.join(map(str, counts))}")
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
