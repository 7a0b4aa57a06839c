"""The Python package (python/tlbsim) over the build tree's libtlbsim, against
the tlbsim program on the same input: run's report, mrc's rows, chase's
points, alloc's rows, single accesses, and errors as tlbsim.Error with the
library's line.
    TLBSIM_LIBRARY=.../libtlbsim.so PYTHONPATH=python python3 test_tlbsim.py TLBSIM SOURCE_DIR
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

import tlbsim

TLBSIM, SRC = sys.argv[1], sys.argv[2]
DEMO = SRC + "/traces/samples/demo.trace"
STRIDE = SRC + "/traces/samples/stride.lackey"


def cli(*args):
    return subprocess.run([TLBSIM, *args], check=True, capture_output=True, text=True).stdout


class Run(unittest.TestCase):
    def test_report_equals_cli(self):
        got = tlbsim.run(DEMO, preset="x86-64")
        want = json.loads(cli("run", "--preset", "x86-64", "--format", "json", DEMO))
        self.assertEqual(got, want)
        self.assertEqual(got["accesses"], 46)
        self.assertEqual(got["tlb"]["l1d"]["misses"], 24)

    def test_sets(self):
        got = tlbsim.run(DEMO, sets=["tlb.l1d.entries=4", "tlb.l1d.ways=4"])
        want = json.loads(cli("run", "--set", "tlb.l1d.entries=4", "--set", "tlb.l1d.ways=4", "--format", "json",
                              DEMO))
        self.assertEqual(got["tlb"]["l1d"], want["tlb"]["l1d"])

    def test_machine_access_and_stat(self):
        with tlbsim.Machine() as m:
            for _ in range(2):
                for page in range(5):
                    m.access(page << 12, 8)
            self.assertEqual(m.stat("accesses"), 10)
            self.assertEqual(m.stat("page_faults"), 5)
            self.assertEqual(m.stat("tlb.l1d.misses"), 5)
            header, values = m.report("csv").splitlines()
            self.assertEqual(values.split(",")[header.split(",").index("tlb.l1d.misses")], "5")

    def test_feed(self):
        """Trace text fed in two calls counts what the file does; the
        allocations made by the first call serve the second."""
        lines = open(DEMO).read().splitlines(keepends=True)
        with tlbsim.Machine(preset="x86-64") as m:
            m.feed("".join(lines[:len(lines) // 2]))
            m.feed("".join(lines[len(lines) // 2:]).encode())
            self.assertEqual(m.stat("accesses"), 46)
            self.assertEqual(m.stat("tlb.l1d.misses"), 24)
            with self.assertRaisesRegex(tlbsim.Error, "^tlbsim_feed:2: "):
                m.feed("r 0x1000 4\nbogus 1\n")

    def test_cpus_equal_cli(self):
        """Two traces as CPUs: the report `tlbsim run A B` gives, and each
        CPU's L1 misses those of its trace alone."""
        with tlbsim.Machine(preset="x86-64") as m:
            m.run_cpus([STRIDE, STRIDE])
            got = m.report("json")
        want = json.loads(cli("run", "--preset", "x86-64", "--format", "json", STRIDE, STRIDE))
        self.assertEqual(got, want)
        alone = tlbsim.run(STRIDE, preset="x86-64")["tlb"]["l1d"]["misses"]
        self.assertEqual([c["tlb"]["l1d"]["misses"] for c in got["cpus"]], [alone, alone])

    def test_errors(self):
        with self.assertRaisesRegex(tlbsim.Error, r"^tlbsim_machine_create:1: unknown key 'entriez' in \[tlb.l1d\]$"):
            tlbsim.Machine(sets=["tlb.l1d.entriez=4"])
        with self.assertRaisesRegex(tlbsim.Error, "^tlbsim_access:1: kind 'Q' is not R, W or X$"):
            tlbsim.Machine().access(0, 8, kind="Q")
        with self.assertRaisesRegex(tlbsim.Error, "^/nonexistent"):
            tlbsim.run("/nonexistent")
        with self.assertRaisesRegex(tlbsim.Error, r"^tlbsim_size: '4Q' is not a size"):
            tlbsim.chase("4Q", 64)


class Mrc(unittest.TestCase):
    def test_rows_equal_cli(self):
        got = tlbsim.mrc(STRIDE, page_sizes="4K,2M", max_entries=64, frame=False)
        want = list(csv.DictReader(io.StringIO(cli("mrc", "--page-size", "4K,2M", "--max-entries", "64", STRIDE))))
        self.assertEqual(len(got), 54)
        self.assertEqual(len(got), len(want))
        for g, w in zip(got, want):
            self.assertEqual({k: str(v) if not isinstance(v, float) else repr(v) for k, v in g.items()}, w)
        self.assertEqual(got[0], {"page_bytes": 4096, "sets": 1, "ways": 1, "entries": 1, "accesses": 256,
                                  "misses": 256, "miss_ratio": 1.0})


class Chase(unittest.TestCase):
    def test_points_equal_cli(self):
        got = tlbsim.chase(["1M", "64M"], stride="2M", preset="h200", frame=False)
        want = list(csv.DictReader(io.StringIO(cli("chase", "--preset", "h200", "--footprint", "1M,64M",
                                                   "--stride", "2M"))))
        self.assertEqual([r["footprint_bytes"] for r in got], [int(w["footprint_bytes"]) for w in want])
        self.assertEqual([r["cycles_per_access"] for r in got], [float(w["cycles_per_access"]) for w in want])
        self.assertEqual(got[1]["cycles_per_access"], 285.0)
        self.assertEqual(got[1]["nodes"], 32)
        # The CLI's very columns and values: tlb.NAME.miss_ratio, None where a level was never looked up.
        self.assertEqual([{k: "" if v is None else str(v) for k, v in r.items()} for r in got], want)
        self.assertEqual(got[1]["tlb.l1d.miss_ratio"], 0.0)
        self.assertIsNone(got[1]["tlb.l2.miss_ratio"])


class Alloc(unittest.TestCase):
    def test_rows_equal_cli(self):
        trace = SRC + "/traces/torch/mlp_train.json.gz"
        got = tlbsim.alloc(trace, policies=["cuda", "caching"], frame=False)
        want = json.loads(cli("alloc", "--format", "json", "--policy", "cuda", "--policy", "caching", trace))
        self.assertEqual(got, want)
        self.assertEqual([r["policy"] for r in got], ["cuda", "caching"])
        self.assertEqual([r["peak_reserved_bytes"] for r in got], [1746927616, 2835349504])
        self.assertEqual(got[1]["recorded"]["model"], "caching")
        self.assertEqual(tlbsim.alloc(trace, policies=["buddy"], frame=False)[0]["policy"], "buddy")

    def test_first_oom(self):
        """Four 4 KiB blocks in 16 KiB, the first and third freed: 8 KiB at
        line 7 finds 8 KiB free in two pieces (fragmentation)."""
        with tempfile.NamedTemporaryFile("w", suffix=".trace", delete=False) as f:
            f.write("alloc 1 4K\nalloc 2 4K\nalloc 3 4K\nalloc 4 4K\nfree 1\nfree 3\nalloc 5 8K\n")
        try:
            [row] = tlbsim.alloc(f.name, policies=["first-fit"], capacity="16K", trace_format="native", frame=False)
            self.assertEqual(tlbsim.alloc(f.name, policies=["first-fit"], capacity="16K", input_format="native",
                                          frame=False), [row])  # the older name
        finally:
            os.unlink(f.name)
        self.assertEqual({k: row[k] for k in ("ooms", "first_oom_event", "first_oom_request_bytes",
                                                "first_oom_largest_free_extent", "first_oom_reason")},
                         {"ooms": 1, "first_oom_event": 7, "first_oom_request_bytes": 8192,
                          "first_oom_largest_free_extent": 4096, "first_oom_reason": "fragmentation"})

    def test_synthetic_equals_cli(self):
        got = tlbsim.alloc(synthetic="requests=40", policies=["caching", "first-fit"], capacity=1 << 30,
                           sets=["vas.max_split_size=64M"], frame=False)
        want = json.loads(cli("alloc", "--format", "json", "--synthetic=requests=40", "--policy", "caching",
                              "--policy", "first-fit", "--capacity", "1G", "--set", "max_split_size=64M"))
        self.assertEqual(got, want)

    def test_errors(self):
        with self.assertRaisesRegex(tlbsim.Error, "^/nonexistent"):
            tlbsim.alloc("/nonexistent")
        with self.assertRaisesRegex(tlbsim.Error, "^tlbsim_alloc: unknown allocator policy 'worst-fit'"):
            tlbsim.alloc(synthetic="", policies=["worst-fit"])
        with self.assertRaisesRegex(tlbsim.Error, "^tlbsim_alloc:1: unknown allocator parameter 'nosuch'"):
            tlbsim.alloc(synthetic="", sets=["nosuch=1"])
        with self.assertRaisesRegex(tlbsim.Error, "^tlbsim.alloc: a trace or synthetic=SPEC"):
            tlbsim.alloc()


class Misuse(unittest.TestCase):
    """Every argument out of its type or range, in turn: TypeError or
    ValueError before the library sees it (no ctypes wraparound), and a
    closed Machine raises instead of handing the library a NULL."""

    def test_integers_do_not_wrap(self):
        with tlbsim.Machine() as m:
            for addr in (2**64, -1, 2**64 + 0x1000):
                with self.assertRaisesRegex(ValueError, "^addr .* is out of range"):
                    m.access(addr)
            for size in (0, 2**64 + 1, -8):
                with self.assertRaisesRegex(ValueError, "^size .* is out of range"):
                    m.access(0x1000, size)
            for bad in (1.5, "0x1000", None, True):
                with self.assertRaises(TypeError):
                    m.access(bad)
            with self.assertRaises(TypeError):
                m.access(0x1000, 8, kind=None)
            with self.assertRaises(ValueError):
                m.access(0x1000, 8, kind="RW")
            for name, args in (("footprint", (2**64, 64)), ("stride", (4096, 2**64 + 8)),
                               ("page_size", (4096, 64, 2**64 + 4096))):
                with self.assertRaisesRegex(ValueError, f"^{name} .* is out of range"):
                    m.chase(*args)
            with self.assertRaises(TypeError):
                m.chase(4096.0, 64)
            self.assertEqual(m.stat("accesses"), 0)  # nothing reached the machine
        with self.assertRaisesRegex(ValueError, "^max_entries 4294967312 is out of range"):
            tlbsim.mrc(STRIDE, max_entries=2**32 + 16)
        with self.assertRaises(TypeError):
            tlbsim.mrc(STRIDE, max_entries="64")
        with self.assertRaisesRegex(ValueError, "^capacity .* is out of range"):
            tlbsim.alloc(synthetic="requests=4", policies=["cuda"], capacity=2**64 + 16384)
        with self.assertRaisesRegex(ValueError, "^capacity .* is out of range"):
            tlbsim.alloc(synthetic="requests=4", policies=["cuda"], capacity=-1)

    def test_strings(self):
        with tlbsim.Machine() as m:
            with self.assertRaisesRegex(TypeError, "^column must be a str, not None"):
                m.stat(None)
            with self.assertRaises(TypeError):
                m.stat(3)
            with self.assertRaisesRegex(ValueError, "NUL"):
                m.stat("accesses\0junk")
            with self.assertRaises(TypeError):
                m.run_trace(None)
            with self.assertRaises(TypeError):
                m.feed(None)
            with self.assertRaises(TypeError):
                m.report(None)
        with self.assertRaisesRegex(TypeError, "^sets must be a list of str"):
            tlbsim.Machine(sets="tlb.l1d.entries=4")
        with self.assertRaisesRegex(TypeError, r"^sets\[1\] must be a str"):
            tlbsim.Machine(sets=["tlb.l1d.entries=4", None])
        with self.assertRaises(TypeError):
            tlbsim.Machine(preset=7)
        with self.assertRaisesRegex(TypeError, "^policies must be a list of str"):
            tlbsim.alloc(synthetic="requests=4", policies="cuda")
        with self.assertRaises(TypeError):
            tlbsim.mrc(None)
        with self.assertRaises(TypeError):
            tlbsim.chase(object(), 64)

    def test_closed_machine(self):
        m = tlbsim.Machine()
        m.access(0x1000)
        m.close()
        m.close()  # twice is fine
        calls = (lambda: m.access(0x1000), lambda: m.stat("accesses"), lambda: m.report(), lambda: m.feed("r 0x1\n"),
                 lambda: m.run_trace(DEMO), lambda: m.chase(4096, 64))
        for call in calls:
            with self.assertRaisesRegex(ValueError, "^the Machine is closed$"):
                call()
        with tlbsim.Machine() as m:
            pass
        with self.assertRaises(ValueError):
            m.stat("accesses")


class Misc(unittest.TestCase):
    def test_version(self):
        self.assertRegex(tlbsim.version(), r"^\d+\.\d+\.\d+$")

    def test_frames(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.assertIsInstance(tlbsim.mrc(STRIDE, max_entries=4), list)
            with self.assertRaises(ImportError):
                tlbsim.mrc(STRIDE, max_entries=4, frame=True)
            self.assertIsInstance(tlbsim.alloc(synthetic="requests=4", policies=["cuda"]), list)
        else:
            self.assertEqual(list(tlbsim.mrc(STRIDE, max_entries=4).columns)[:3], ["page_bytes", "sets", "ways"])
            self.assertEqual(list(tlbsim.alloc(synthetic="requests=4", policies=["cuda"]).policy), ["cuda"])


TEACHING = SRC + "/traces/samples/teaching.trace"


class Views(unittest.TestCase):
    """explain, dump, the per-access log, the quiz and sweep: the commands' own output."""

    def test_explain(self):
        got = tlbsim.explain([0x1234, 0xffff], preset="teaching")
        self.assertEqual(got, json.loads(cli("explain", "--preset", "teaching", "--format", "json", "0x1234", "0xffff")))
        self.assertEqual(tlbsim.explain(0x1234, preset="teaching", format="text"),
                         cli("explain", "--preset", "teaching", "0x1234"))

    def test_log_and_dump(self):
        got = tlbsim.log(TEACHING, preset="teaching")
        want = [json.loads(line) for line in cli("run", "--preset", "teaching", "--log", "--format", "json",
                                                 TEACHING).splitlines()[:len(got)]]
        self.assertEqual(got, want)
        self.assertEqual(sum(r["page_faults"] for r in got if r["record"] == "access"), 14)
        self.assertEqual(tlbsim.dump(TEACHING, preset="teaching"), cli("dump", "--preset", "teaching", TEACHING))
        self.assertEqual(tlbsim.dump(TEACHING, preset="teaching", format="json"),
                         json.loads(cli("dump", "--preset", "teaching", "--format", "json", TEACHING)))
        with tlbsim.Machine(preset="teaching") as m:  # a log fed as text keeps the machine's state
            first = m.log(text="alloc 1 0x300\nw @1+0x10 4\n")
            second = m.log(text="r @1+0x10 4\n")
            self.assertEqual(first[1]["levels"][0]["hit"], False)
            self.assertEqual(second[0]["levels"][0]["hit"], True)
            self.assertIn("valid", m.dump())

    def test_quiz(self):
        self.assertEqual(tlbsim.quiz(seed=7, answers=True, format="text"), cli("quiz", "--seed", "7", "--answers"))
        got = tlbsim.quiz(seed=3, kinds=["tlb", "alloc"])
        self.assertEqual(got, json.loads(cli("quiz", "--seed", "3", "--kind", "tlb,alloc", "--format", "json")))
        with self.assertRaisesRegex(tlbsim.Error, "^tlbsim_quiz: 'maths' is not a kind"):
            tlbsim.quiz(kinds="maths")

    def test_sweep(self):
        got = tlbsim.sweep(STRIDE, vary=["tlb.l1d.entries=16,64"], sets=["latency.data_cycles=2"], frame=False)
        want = list(csv.DictReader(io.StringIO(cli("sweep", "--set", "latency.data_cycles=2", "--vary",
                                                   "tlb.l1d.entries=16,64", STRIDE))))
        self.assertEqual([{k: "" if v is None else str(v) for k, v in r.items()} for r in got], want)
        self.assertEqual([r["tlb.l1d.entries"] for r in got], [16, 64])
        self.assertEqual(got[0]["config"], "x86-64")


class Loading(unittest.TestCase):
    """import tlbsim without TLBSIM_LIBRARY: the build tree's copy finds its
    library; a package with none beside it says what to set; a Machine() that
    failed leaves nothing to complain about at exit."""

    def python(self, code, pythonpath):
        env = {k: v for k, v in os.environ.items() if k != "TLBSIM_LIBRARY"}
        env["PYTHONPATH"] = pythonpath
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)

    def test_build_tree(self):
        build = os.path.dirname(os.environ["TLBSIM_LIBRARY"])
        r = self.python("import tlbsim; print(tlbsim.run(%r)['accesses'])" % DEMO, os.path.join(build, "python"))
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "46\n", ""))

    def test_not_found(self):
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "tlbsim"))
            with open(os.path.join(SRC, "python/tlbsim/__init__.py")) as src, \
                    open(os.path.join(d, "tlbsim/__init__.py"), "w") as dst:
                dst.write(src.read())
            env = {k: v for k, v in os.environ.items() if k not in ("TLBSIM_LIBRARY", "LD_LIBRARY_PATH")}
            env["PYTHONPATH"] = d
            r = subprocess.run([sys.executable, "-c", "import tlbsim"], capture_output=True, text=True, env=env)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("ImportError: tlbsim: cannot load libtlbsim; tried ", r.stderr)
        self.assertIn("set TLBSIM_LIBRARY=", r.stderr)

    def test_failed_machine_is_quiet(self):
        r = self.python("import tlbsim\ntry:\n    tlbsim.Machine(preset='nope')\nexcept tlbsim.Error as e:\n"
                        "    print(e)", os.path.join(os.path.dirname(os.environ["TLBSIM_LIBRARY"]), "python"))
        self.assertEqual(r.returncode, 0)
        self.assertIn("no preset named 'nope'", r.stdout)
        self.assertNotIn("Exception ignored", r.stderr)
        self.assertEqual(r.stderr, "")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
