#!/usr/bin/env python3
"""Progress lines and ^C (issue #27), on a pseudo-terminal.

Every command that can take more than a second writes a progress line to
stderr when stderr is a terminal: here a pty (python3's pty module), while
stdout is a pipe. The line is erased when the work is done, so stdout is
byte for byte what the command writes without a terminal; --quiet and a
stderr that is not a terminal get no line at all.

SIGINT during a replay ends it with the report of what was read, marked
partial, and exit 130. To interrupt mid-trace deterministically the trace
comes through stdin in two parts: the first part, then (once the progress
line shows the replay running) SIGINT, then the second part, which wakes the
reader; the replay stops after that block.

Usage: progress.py TLBSIM SOURCE_DIR
"""
import os
import pty
import signal
import subprocess
import sys
import tempfile
import threading
import time

tlbsim, src = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix="tlbsim-progress.")
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def feed(pipe, parts, gate):
    """Writes parts to pipe; before each part after the first, waits for gate."""
    try:
        for i, part in enumerate(parts):
            if i:
                gate.wait(60)
            pipe.write(part)
            pipe.flush()
    except BrokenPipeError:
        pass
    finally:
        try:
            pipe.close()
        except BrokenPipeError:
            pass


def on_pty(args, parts=(b"",), interrupt=False):
    """Runs tlbsim ARGS with stderr on a pty and stdin fed PARTS; with
    interrupt, SIGINT once the progress line has appeared (after the first
    part). (rc, stdout bytes, stderr bytes)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([tlbsim] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    gate = threading.Event()
    out = []
    reader = threading.Thread(target=lambda: out.append(p.stdout.read()))
    writer = threading.Thread(target=feed, args=(p.stdin, parts, gate))
    reader.start()
    writer.start()
    err = b""
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the pty
            break
        if not chunk:
            break
        err += chunk
        if interrupt and not gate.is_set() and b": " in err:
            p.send_signal(signal.SIGINT)
            gate.set()
    gate.set()
    os.close(master)
    writer.join()
    reader.join()
    return p.wait(), out[0], err


def plain(args, data=b""):
    """The same command without a terminal: (rc, stdout, stderr)."""
    r = subprocess.run([tlbsim] + args, input=data, capture_output=True)
    return r.returncode, r.stdout, r.stderr


def lines(n, start=0):
    """A native trace of n reads, a page apart over 256 MiB."""
    return "".join("r %#x 8\n" % (((i + start) * 4096) % (1 << 28)) for i in range(n)).encode()


demo = os.path.join(src, "traces/samples/demo.trace")
stride = os.path.join(src, "traces/samples/stride.lackey")
chase_csv = os.path.join(src, "gpu/results/h200/chase.csv")
gather_csv = os.path.join(src, "gpu/results/h200/gather.csv")
few_rows = os.path.join(work, "few.csv")  # calibrate has no --every: 40 rows of the H200's chase
with open(chase_csv) as f, open(few_rows, "w") as out:
    out.writelines(line for _, line in zip(range(41), f))
allocs = os.path.join(work, "allocs.trace")
with open(allocs, "w") as f:
    for i in range(1, 2001):
        f.write("alloc %d 4K\n" % i)
        if i % 3 == 0:
            f.write("free %d\n" % (i - 1))

# 1. A line on a terminal, erased at the end; stdout untouched.
commands = {
    "run": ["run", demo],
    "dump": ["dump", demo],
    "mrc": ["mrc", stride],
    "sweep": ["sweep", "--vary", "tlb.l1d.entries=16,64", stride],
    "convert": ["convert", "--to", "native", demo, os.path.join(work, "out.trace")],
    "alloc": ["alloc", "--capacity", "64M", "--policy", "first-fit,cuda", allocs],
    "chase": ["chase", "--preset", "x86-64", "--footprint", "1M,2M", "--stride", "4K", "--steps", "64"],
    "gather": ["gather", "--footprint", "256M", "--threads-per-sm", "32", "--loads-per-thread", "8", "--nodes", "1024"],
    "validate": ["validate", "--every", "400", chase_csv],
    "calibrate": ["calibrate", few_rows],
    "uvm": ["uvm", "--size", "256M", "--init", "gpu,host", "--first", "stream"],
    "validate uvm rows": ["validate", "--every", "8", os.path.join(src, "gpu/results/h200/run4/smoke/uvm.csv")],
    "kernel": ["kernel", "--stats", os.path.join(src, "traces/kernels/kernelslist.g")],
}
for name, args in commands.items():
    rc, out, err = on_pty(args)
    check(rc == 0, "%s: exit %d on a pty: %r" % (name, rc, err[-300:]))
    text = err.decode(errors="replace")
    check(("\rtlbsim %s: " % args[0]) in text, "%s: no progress line on a pty: %r" % (name, text[:200]))
    if name == "convert":  # its one summary line (\r\n: the pty's) follows the erased progress line
        check(text.endswith("\r\n") and text.split("\r")[-2].startswith("tlbsim convert: ") and
              text.split("\r")[-3].strip(" ") == "", "convert: the summary line is not alone after the progress line: %r" % text[-200:])
        continue
    # \rLINE ... \rSPACES\r: the last line written is blanks as wide as any before it.
    parts = text.split("\r")
    check(text.endswith("\r") and parts[-2].strip(" ") == "" and len(parts[-2]) >= max(map(len, parts[:-2])),
          "%s: the progress line is not erased at the end: %r" % (name, text[-200:]))
    rc2, out2, err2 = plain(args)
    check(out == out2, "%s: stdout on a pty differs from stdout without one" % name)
    check(err2 == b"", "%s: stderr without a terminal is not empty: %r" % (name, err2[:200]))
    if name in ("run", "sweep", "mrc", "uvm", "kernel"):
        rc3, out3, err3 = on_pty(args + ["--quiet"])
        check(err3 == b"" and out3 == out, "%s --quiet: progress or other output on the pty: %r" % (name, err3[:200]))

# 2. ^C mid-replay: the report of what was read, partial, exit 130.
first, second = lines(200000), lines(200000, 200000)
rc, out, err = on_pty(["run", "--format", "json", "-"], [first, second], interrupt=True)
import json  # noqa: E402

check(rc == 130, "run ^C: exit %d, want 130 (%r)" % (rc, err[-300:]))
try:
    doc = json.loads(out)
except ValueError:
    doc = {}
check(doc.get("partial") is True, "run ^C: the report is not marked partial")
check(0 < doc.get("accesses", 0) < 400000, "run ^C: %s accesses, want some of 400000" % doc.get("accesses"))
check(b"tlbsim run: interrupted after " in err and b"records" in err, "run ^C: no note on stderr: %r" % err[-300:])
rc, out, err = on_pty(["run", "-"], [first, second], interrupt=True)
check(rc == 130 and b"\npartial   interrupted" in out, "run ^C text: exit %d, no partial line" % rc)
rc, out, err = on_pty(["run", "--format", "csv", "-"], [first, second], interrupt=True)
head, row = out.decode().splitlines()[:2]
check(rc == 130 and head.endswith(",partial") and row.endswith(",true"), "run ^C csv: no partial column: %s" % head[-40:])

rc, out, err = on_pty(["sweep", "--vary", "tlb.l1d.entries=16,64", "-"], [first, second], interrupt=True)
rows = out.decode().splitlines()
check(rc == 130 and rows and rows[0].endswith(",partial") and len(rows) == 3 and all(r.endswith(",true") for r in rows[1:]),
      "sweep ^C: exit %d, rows %r" % (rc, rows[:3]))
check(b"tlbsim sweep: interrupted after " in err, "sweep ^C: no note on stderr")

rc, out, err = on_pty(["mrc", "--max-entries", "64", "-"], [first, second], interrupt=True)
rows = out.decode().splitlines()
check(rc == 130 and rows and rows[0].endswith(",partial") and all(r.endswith(",true") for r in rows[1:]),
      "mrc ^C: exit %d, rows %r" % (rc, rows[:2]))

rc, out, err = on_pty(["dump", "--format", "json", "-"], [first, second], interrupt=True)
check(rc == 130 and json.loads(out or b"{}").get("partial") is True, "dump ^C: exit %d" % rc)

target = os.path.join(work, "never.bin")
rc, out, err = on_pty(["convert", "-", target], [first, second], interrupt=True)
check(rc == 130 and b"not written" in err, "convert ^C: exit %d %r" % (rc, err[-200:]))
check(not [f for f in os.listdir(work) if "never" in f], "convert ^C: left %s" % os.listdir(work))

def churn(first, n):
    """n allocations from id first, each freed two later."""
    return "".join("alloc %d 4K\nfree %d\n" % (i, i) for i in range(first, first + n)).encode()


rc, out, err = on_pty(["alloc", "--trace-format", "native", "--capacity", "1G", "--policy", "first-fit,buddy",
                       "--format", "json", "-"], [churn(1, 100000), churn(100001, 100000)], interrupt=True)
check(rc == 130 and all(p.get("partial") is True for p in json.loads(out or b"[{}]")),
      "alloc ^C: exit %d %r" % (rc, err[-200:]))

print("progress: %d checks, %d failed" % (checks, len(failures)))
sys.exit(1 if failures else 0)
