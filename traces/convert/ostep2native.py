#!/usr/bin/env python3
"""Turn the output of OSTEP's paging-multilevel-translate.py into a tlbsim trace.

The homework (ostep-homework, vm-smalltables/) prints a 4 KiB physical memory
as 128 pages of 32 bytes ("page  N:" then 64 hex digits), the PDBR (the page
holding the page directory), then the virtual addresses to translate. A
directory entry and a table entry are one byte: bit 7 valid, bits 6..0 a page
number. This walks the directory and its tables as printed and writes, for
every valid table entry, `map VA 32 frame=PFN` (VA = PDE index << 10 | PTE
index << 5), then one `r VA` per address asked, each with the homework's own
answer as a comment when the input was printed with -c. Run the trace with
the `ostep` preset:

    python3 paging-multilevel-translate.py -s 0 -c > s0.txt
    python3 ostep2native.py s0.txt > ostep_seed0.trace
    tlbsim run --preset ostep --log ostep_seed0.trace
"""
import re
import sys

PAGE_BYTES = 32


def parse(lines):
    memory, pdbr, addresses, answers = {}, None, [], {}
    current = None
    for line in lines:
        m = re.match(r"page\s+(\d+):([0-9a-f]{64})$", line.strip())
        if m:
            memory[int(m.group(1))] = bytes.fromhex(m.group(2))
            continue
        m = re.match(r"PDBR:\s*(\d+)", line)
        if m:
            pdbr = int(m.group(1))
            continue
        m = re.match(r"Virtual Address (?:0x)?([0-9a-f]+):", line)
        if m:
            current = int(m.group(1), 16)
            addresses.append(current)
            continue
        m = re.search(r"--> (Translates to Physical Address 0x[0-9a-f]+|Fault \(.*\))", line)
        if m and current is not None:
            answers[current] = m.group(1)
    if pdbr is None or len(memory) != 128:
        raise SystemExit("ostep2native: expected 128 'page N:' lines and a 'PDBR:' line")
    return memory, pdbr, addresses, answers


def mappings(memory, pdbr):
    for pde_index, pde in enumerate(memory[pdbr]):
        if not pde & 0x80:
            continue
        for pte_index, pte in enumerate(memory[pde & 0x7F]):
            if pte & 0x80:
                yield pde_index << 10 | pte_index << 5, pte & 0x7F


def main(argv):
    with open(argv[1]) if len(argv) > 1 and argv[1] != "-" else sys.stdin as f:
        memory, pdbr, addresses, answers = parse(f.read().splitlines())
    out = ["#tlbsim-trace 1",
           "# OSTEP paging-multilevel-translate.py, converted by traces/convert/ostep2native.py:",
           "# PDBR %d; every valid PTE of the printed memory as a map record." % pdbr]
    out += ["map 0x%04x %d frame=0x%02x" % (va, PAGE_BYTES, pfn) for va, pfn in mappings(memory, pdbr)]
    out.append("mark translate")
    for va in addresses:
        answer = answers.get(va)
        out.append("r 0x%04x%s" % (va, "  # " + answer if answer else ""))
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv)
