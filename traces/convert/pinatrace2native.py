#!/usr/bin/env python3
"""Convert Intel Pin's pinatrace output to tlbsim's native trace format.

pinatrace (Pin's ManualExamples/pinatrace.cpp) writes one line per memory
operand, "IP: R ADDR" or "IP: W ADDR" with both numbers as %p, and "#eof" when
the program ends. Each becomes "r ADDR [SIZE]" or "w ADDR [SIZE]"; pinatrace
records no size, so SIZE is --size (default 1, the native default, left out).
A file without "#eof" was cut short: the lines so far are written, then the
converter fails. gzip input is read transparently; "-" is standard input.

    python3 pinatrace2native.py pinatrace.out > trace.txt
    python3 pinatrace2native.py --self-test
"""
import argparse
import gzip
import io
import sys


class ConvertError(Exception):
    pass


def parse_ptr(text):
    if text == "(nil)":  # glibc's %p of a null pointer
        return 0
    if not text.startswith("0x"):
        raise ValueError(text)
    return int(text, 16)


def convert(lines, out, name="<stdin>", size=1):
    """Writes native lines to out; returns the number of accesses."""
    suffix = "" if size == 1 else f" {size}"
    out.write("#tlbsim-trace 1\n# converted from pinatrace: %s\n" % name)
    count, ended = 0, False
    for no, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        if ended:
            raise ConvertError(f"{name}:{no}: text after #eof")
        if line == "#eof":
            ended = True
            continue
        fields = line.split()
        try:
            if len(fields) != 3 or not fields[0].endswith(":") or fields[1] not in ("R", "W"):
                raise ValueError(line)
            parse_ptr(fields[0][:-1])
            addr = parse_ptr(fields[2])
        except ValueError:
            raise ConvertError(f"{name}:{no}: not a pinatrace line (expected 'IP: R|W ADDR'): {line[:60]!r}")
        out.write(f"{fields[1].lower()} {addr:#x}{suffix}\n")
        count += 1
    if not ended:
        raise ConvertError(f"{name}: no #eof at the end: the trace was cut short")
    return count


def open_text(path):
    stream = sys.stdin.buffer if path == "-" else open(path, "rb")
    if stream.peek(2)[:2] == b"\x1f\x8b":
        stream = gzip.GzipFile(fileobj=stream)
    return io.TextIOWrapper(stream, encoding="ascii", errors="replace")


def self_test():
    good = "0x400a1c: W 0x7ffd3e0\n0x400a20: R 0x601040\n0x400a24: R (nil)\n#eof\n"
    out = io.StringIO()
    assert convert(io.StringIO(good), out, "t") == 3
    assert out.getvalue().splitlines()[2:] == ["w 0x7ffd3e0", "r 0x601040", "r 0x0"], out.getvalue()
    out = io.StringIO()
    convert(io.StringIO(good), out, "t", size=8)
    assert out.getvalue().splitlines()[2] == "w 0x7ffd3e0 8"
    for bad, where in [("0x1: R 0x2\n", "t: no #eof"), ("0x1: X 0x2\n#eof\n", "t:1:"),
                       ("0x1 R 0x2\n#eof\n", "t:1:"), ("0x1: R 12\n#eof\n", "t:1:"),
                       ("#eof\n0x1: R 0x2\n", "t:2: text after #eof")]:
        try:
            convert(io.StringIO(bad), io.StringIO(), "t")
        except ConvertError as e:
            assert str(e).startswith(where), (bad, str(e))
        else:
            raise AssertionError(f"accepted {bad!r}")
    print("pinatrace2native: self-test passed")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input", nargs="?", help="pinatrace output, plain or gzip, or - for stdin")
    ap.add_argument("--size", type=int, default=1, help="bytes per access (default 1)")
    ap.add_argument("--self-test", action="store_true", help="run the built-in checks")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if not args.input or args.size < 1:
        ap.error("give an input file (or -) and a --size of at least 1")
    name = "<stdin>" if args.input == "-" else args.input
    try:
        with open_text(args.input) as lines:
            convert(lines, sys.stdout, name, args.size)
    except (ConvertError, OSError) as e:
        sys.exit(f"pinatrace2native: {e}")


if __name__ == "__main__":
    main()
