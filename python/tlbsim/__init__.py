"""tlbsim for notebooks: libtlbsim (tlbsim/tlbsim.h) through ctypes.

    import tlbsim
    tlbsim.run("traces/samples/demo.trace", preset="x86-64")   # the report, a dict
    tlbsim.log("traces/samples/teaching.trace", preset="teaching")  # run --log: a dict per record
    tlbsim.explain([0x1234, 0xffff], preset="teaching")        # walks entry by entry, a dict
    tlbsim.mrc("trace.lackey", page_sizes="4K,2M")              # miss-ratio curve rows
    tlbsim.sweep("trace.lackey", vary=["tlb.l1d.entries=16,64"])  # a row per configuration
    tlbsim.chase(["1M", "64M"], stride="2M", preset="h200")     # pointer-chase points
    tlbsim.alloc("traces/torch/mlp_train.json.gz")              # allocator policies compared
    tlbsim.quiz(seed=7, answers=True)                           # exercises, a dict
    m = tlbsim.Machine(preset="teaching"); m.feed("alloc 1 4K\nr @1 4\n"); m.dump()

Row results (mrc, sweep, chase, alloc) are a pandas DataFrame when pandas
imports (or frame=True), else a list of dicts (frame=False), keyed as the
command's CSV header or JSON keys (docs/OUTPUT.md). The library is
$TLBSIM_LIBRARY when set, else libtlbsim.so.0 beside the package (the
build tree's python/ has one), then where the package was installed from
(the install's lib directory), then a build directory of the source tree
the package is in (build*/), then the dynamic linker's search; when none
loads, ImportError says where it looked and what to set. Errors raise
tlbsim.Error with libtlbsim's one line "FILE:LINE: what is wrong".

Arguments are checked before they reach the library: a number that is not
an int raises TypeError, one outside its C type (a 64-bit address, a 32-bit
count) ValueError, never wrapping around; a string (or path) must be one,
without NUL bytes; a list of strings must be a list (or tuple) of them. A
closed Machine raises ValueError.
"""
import csv
import ctypes
import glob
import io
import json
import os

__all__ = ["Error", "Machine", "run", "log", "explain", "dump", "mrc", "sweep", "chase", "alloc", "quiz", "version"]

_ERROR_MAX = 512


class Error(Exception):
    """What libtlbsim reported: one line "FILE:LINE: what is wrong"."""


_SONAME = "libtlbsim.so.0"


def _candidates():
    """Where libtlbsim may be, in the order tried (the docstring's)."""
    if os.environ.get("TLBSIM_LIBRARY"):
        return [os.environ["TLBSIM_LIBRARY"]]
    here = os.path.dirname(os.path.abspath(__file__))
    found = [os.path.join(here, _SONAME)]
    try:  # written by the build (python/python.cmake): the build tree's, or the install's lib directory
        from . import _where
        found += [os.path.normpath(os.path.join(here, d, _SONAME)) for d in _where.LIBRARY_DIRS]
    except ImportError:
        pass
    tree = os.path.dirname(os.path.dirname(here))  # python/tlbsim in a source tree: its build directories
    found += sorted(glob.glob(os.path.join(tree, "build*", _SONAME)), key=os.path.getmtime, reverse=True)
    return found + [_SONAME]


def _open_library():
    tried = []
    for path in _candidates():
        if path != _SONAME and not os.path.exists(path):
            tried.append(path + " (none)")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:  # e.g. a sanitized build's library, which needs its runtime preloaded
            tried.append("%s (%s)" % (path, e))
    raise ImportError("tlbsim: cannot load libtlbsim; tried " + "; ".join(tried) +
                      ". Build it (cmake -S . -B build && cmake --build build) and set "
                      "TLBSIM_LIBRARY=/path/to/build/libtlbsim.so.0, or install tlbsim (cmake --install build)")


def _load():
    lib = _open_library()
    P, S, U64, I = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint64, ctypes.c_int
    sig = {
        "tlbsim_version": (S, []),
        "tlbsim_machine_create": (P, [S, S, ctypes.POINTER(S), ctypes.c_size_t, S]),
        "tlbsim_machine_destroy": (None, [P]),
        "tlbsim_access": (I, [P, ctypes.c_char, U64, U64, S]),
        "tlbsim_run_trace": (I, [P, S, S, S]),
        "tlbsim_run_cpus": (I, [P, ctypes.POINTER(S), ctypes.c_size_t, S, S]),
        "tlbsim_feed": (I, [P, S, ctypes.c_size_t, S, S]),
        "tlbsim_stat": (I, [P, S, ctypes.POINTER(ctypes.c_double), S]),
        "tlbsim_report": (P, [P, S, S]),
        "tlbsim_mrc": (P, [S, S, S, ctypes.c_uint32, S]),
        "tlbsim_chase_rows": (P, [P, ctypes.POINTER(U64), ctypes.c_size_t, U64, U64, S, S, S]),
        "tlbsim_alloc": (P, [S, S, ctypes.POINTER(S), ctypes.c_size_t, S, U64, ctypes.POINTER(S), ctypes.c_size_t,
                             S]),
        "tlbsim_explain": (P, [P, ctypes.POINTER(U64), ctypes.c_size_t, U64, S, S]),
        "tlbsim_dump": (P, [P, S, S]),
        "tlbsim_log": (P, [P, S, S, ctypes.c_size_t, S, S, S]),
        "tlbsim_quiz": (P, [U64, S, I, S, S]),
        "tlbsim_sweep": (P, [S, S, S, S, ctypes.POINTER(S), ctypes.c_size_t, ctypes.POINTER(S), ctypes.c_size_t,
                             S]),
        "tlbsim_size": (I, [S, ctypes.POINTER(U64), S]),
        "tlbsim_free": (None, [P]),
    }
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


_lib = _load()


_U32, _U64 = (1 << 32) - 1, (1 << 64) - 1


def _int(v, name, hi, lo=0):
    """v as a C integer of [lo, hi]: TypeError for a non-int (bool too),
    ValueError outside the range, rather than ctypes' silent wrap."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{name} must be an int, not {type(v).__name__}")
    if not lo <= v <= hi:
        raise ValueError(f"{name} {v} is out of range ({lo}..{hi})")
    return v


def _b(s, name="argument", optional=True):
    """A str or path as bytes for a char *; None stays NULL where allowed."""
    if s is None:
        if optional:
            return None
        raise TypeError(f"{name} must be a str, not None")
    if not isinstance(s, (str, bytes, os.PathLike)):
        raise TypeError(f"{name} must be a str, not {type(s).__name__}")
    b = os.fsencode(s)
    if b"\0" in b:
        raise ValueError(f"{name} holds a NUL byte")
    return b


def _call(fn, *args):
    """fn(*args, err): its result, or Error when it failed (-1 or NULL)."""
    err = ctypes.create_string_buffer(_ERROR_MAX)
    res = fn(*args, err)
    if res is None or (fn.restype is ctypes.c_int and res == -1):
        raise Error(err.value.decode(errors="replace"))
    return res


def _text(ptr):
    """A char * the library returned, as str, freed."""
    try:
        return ctypes.string_at(ptr).decode()
    finally:
        _lib.tlbsim_free(ptr)


def version():
    return _lib.tlbsim_version().decode()


def _size(v, name="size"):
    """A size as tlbsim writes them (4096, "0x1000", "4K", "2MiB") in bytes,
    read by libtlbsim's own parser; an int must fit 64 bits."""
    if isinstance(v, str):
        out = ctypes.c_uint64()
        _call(_lib.tlbsim_size, _b(v, name), ctypes.byref(out))
        return out.value
    return _int(v, name, _U64)


def _data(text):
    """Trace text (str or bytes) as bytes for the library."""
    if isinstance(text, str):
        return text.encode()
    if isinstance(text, (bytes, bytearray, memoryview)):
        return bytes(text)
    raise TypeError(f"text must be str or bytes, not {type(text).__name__}")


def _strings(items, name):
    """A list (or tuple) of str as (char *array, count) for the library: a
    lone str is refused, not taken letter by letter."""
    if isinstance(items, (str, bytes)) or not isinstance(items, (list, tuple)):
        raise TypeError(f"{name} must be a list of str, not {type(items).__name__}")
    items = [_b(s, f"{name}[{i}]", optional=False) for i, s in enumerate(items)]
    return (ctypes.c_char_p * max(len(items), 1))(*items), len(items)


class Machine:
    """One simulated machine: a preset (default x86-64) or an INI file, then
    "SECTION.KEY=VALUE" overrides, as `tlbsim run --preset/--config/--set`."""

    _m = None  # a Machine whose __init__ failed holds nothing to close

    def __init__(self, preset=None, config=None, sets=()):
        self._m = _call(_lib.tlbsim_machine_create, _b(preset, "preset"), _b(config, "config"),
                        *_strings(sets, "sets"))

    def close(self):
        if self._m:
            _lib.tlbsim_machine_destroy(self._m)
            self._m = None

    def _open(self):
        """The library's handle: ValueError once closed (as a closed file)."""
        if not self._m:
            raise ValueError("the Machine is closed")
        return self._m

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def access(self, addr, size=1, kind="R"):
        """One access: kind R (read), W (write) or X (fetch)."""
        if not isinstance(kind, str):
            raise TypeError(f"kind must be a str, not {type(kind).__name__}")
        if len(kind.encode()) != 1:  # one byte for the char; the library says which kinds there are
            raise ValueError(f"kind {kind!r} is not one character like 'R', 'W' or 'X'")
        _call(_lib.tlbsim_access, self._open(), kind.encode(), _int(addr, "addr", _U64), _int(size, "size", _U64, 1))

    def run_trace(self, path, trace_format=None):
        """Replays a whole trace file (any format tlbsim reads)."""
        _call(_lib.tlbsim_run_trace, self._open(), _b(path, "path", optional=False),
              _b(trace_format, "trace_format"))

    def run_cpus(self, paths, trace_format=None):
        """Replays several trace files as CPUs 0, 1, ..., each with TLBs of
        its own, taking turns one access each (`tlbsim run A B ...`)."""
        _call(_lib.tlbsim_run_cpus, self._open(), *_strings(paths, "paths"), _b(trace_format, "trace_format"))

    def feed(self, text, trace_format=None):
        """Replays trace text (native lines: accesses, alloc/free, map/unmap,
        ctx, mark; or any format tlbsim reads); the machine keeps its state
        between calls. Errors read "tlbsim_feed:LINE: ..."."""
        data = _data(text)
        _call(_lib.tlbsim_feed, self._open(), data, len(data), _b(trace_format, "trace_format"))

    def stat(self, column):
        """A statistic by its CSV column name, e.g. "tlb.l1d.misses"."""
        out = ctypes.c_double()
        _call(_lib.tlbsim_stat, self._open(), _b(column, "column", optional=False), ctypes.byref(out))
        return out.value

    def report(self, format="json"):
        """The report: a dict for "json", else the text of "csv" or "text"."""
        text = _text(_call(_lib.tlbsim_report, self._open(), _b(format, "format", optional=False)))
        return json.loads(text) if format == "json" else text

    def log(self, trace=None, text=None, trace_format=None, format="json"):
        """`tlbsim run --log`: the trace file (or trace text) replayed record by
        record into this machine (which keeps its state, as after feed); a
        dict per record for "json", else the text lines."""
        if (trace is None) == (text is None):
            raise Error("Machine.log: a trace file or text=, not both or neither")
        data = None if text is None else _data(text)
        out = _text(_call(_lib.tlbsim_log, self._open(), _b(trace, "trace"), data, len(data) if data else 0,
                          _b(trace_format, "trace_format"), _b(format, "format", optional=False)))
        return [json.loads(line) for line in out.splitlines()] if format == "json" else out

    def dump(self, format="text"):
        """`tlbsim dump`: the page table as it stands, its text or (json) a dict."""
        out = _text(_call(_lib.tlbsim_dump, self._open(), _b(format, "format", optional=False)))
        return json.loads(out) if format == "json" else out

    def explain(self, addresses, page_size=0, format="json"):
        """`tlbsim explain`: the addresses touched in order on a fresh machine of
        this configuration (this one unchanged), each walked; a dict for
        "json", else the text."""
        if isinstance(addresses, int) and not isinstance(addresses, bool):
            addresses = [addresses]
        elif not isinstance(addresses, (list, tuple, range)):
            raise TypeError(f"addresses must be an int or a list of them, not {type(addresses).__name__}")
        vas = [_int(a, f"addresses[{i}]", _U64) for i, a in enumerate(addresses)]
        out = _text(_call(_lib.tlbsim_explain, self._open(), (ctypes.c_uint64 * max(len(vas), 1))(*vas), len(vas),
                          _size(page_size, "page_size"), _b(format, "format", optional=False)))
        return json.loads(out) if format == "json" else out

    def chase(self, footprint, stride, page_size=0, order="seq", mapping="contiguous"):
        """One pointer-chase point on this machine's format and MMU: a dict
        keyed as `tlbsim chase --format csv` heads its columns."""
        return self.chase_rows([_size(footprint, "footprint")], stride, page_size, order, mapping)[0]

    def chase_rows(self, footprints, stride, page_size=0, order="seq", mapping="contiguous"):
        """The points of several footprints, `tlbsim chase`'s rows (a list of
        dicts keyed as its CSV header: tlb.l1d.miss_ratio, ...)."""
        if not isinstance(footprints, (list, tuple, range)):
            raise TypeError(f"footprints must be a list of sizes, not {type(footprints).__name__}")
        sizes = [_size(f, f"footprints[{i}]") for i, f in enumerate(footprints)]
        text = _text(_call(_lib.tlbsim_chase_rows, self._open(), (ctypes.c_uint64 * max(len(sizes), 1))(*sizes),
                           len(sizes), _size(stride, "stride"), _size(page_size, "page_size"), _b(order, "order"),
                           _b(mapping, "mapping")))
        return _csv_rows(text)


def _rows(rows, frame):
    if frame is not False:
        try:
            import pandas
            return pandas.DataFrame(rows)
        except ImportError:
            if frame:
                raise
    return rows


def _number(s):
    if s == "":
        return None
    try:
        return int(s)
    except ValueError:
        try:
            return float(s)
        except ValueError:
            return s  # a label (pattern, order, mapping)


def _csv_rows(text):
    """CSV text the library wrote as a list of dicts of numbers (an empty
    field, a ratio of nothing, is None)."""
    return [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(io.StringIO(text))]


def run(trace, preset=None, config=None, sets=(), trace_format=None):
    """`tlbsim run --format json`: the report of one trace, as a dict."""
    with Machine(preset, config, sets) as m:
        m.run_trace(trace, trace_format)
        return m.report("json")


def log(trace, preset=None, config=None, sets=(), trace_format=None, format="json"):
    """`tlbsim run --log`: a dict per record (format "json"), or the lines."""
    with Machine(preset, config, sets) as m:
        return m.log(trace, trace_format=trace_format, format=format)


def explain(addresses, preset=None, config=None, sets=(), page_size=0, format="json"):
    """`tlbsim explain`: each address's walk, entry by entry (a dict for json)."""
    with Machine(preset, config, sets) as m:
        return m.explain(addresses, page_size, format)


def dump(trace, preset=None, config=None, sets=(), trace_format=None, format="text"):
    """`tlbsim dump`: the page table a trace leaves, its text or a dict."""
    with Machine(preset, config, sets) as m:
        m.run_trace(trace, trace_format)
        return m.dump(format)


def quiz(seed=1, kinds=None, answers=False, format="json"):
    """`tlbsim quiz`: seed's exercises (kinds: a comma list or a list of
    translate, tlb, pt-size, alloc, pool; None: all); a dict for json."""
    if kinds is not None and not isinstance(kinds, str):
        _strings(kinds, "kinds")  # a list of str, each checked
        kinds = ",".join(os.fsdecode(k) for k in kinds)
    out = _text(_call(_lib.tlbsim_quiz, _int(seed, "seed", _U64), _b(kinds, "kinds"), 1 if answers else 0,
                      _b(format, "format", optional=False)))
    return json.loads(out) if format == "json" else out


def sweep(trace, vary=(), preset=None, config=None, sets=(), trace_format=None, frame=None):
    """`tlbsim sweep`: one row per combination of the vary axes
    ("tlb.l1d.entries=16,32,64"), keyed as its CSV header (trace, the
    varied keys, then run's columns)."""
    if isinstance(vary, str):
        vary = [vary]
    text = _text(_call(_lib.tlbsim_sweep, _b(trace, "trace", optional=False), _b(trace_format, "trace_format"),
                       _b(preset, "preset"), _b(config, "config"), *_strings(sets, "sets"), *_strings(vary, "vary")))
    return _rows(_csv_rows(text), frame)


def mrc(trace, page_sizes="4K", max_entries=0, trace_format=None, frame=None):
    """`tlbsim mrc`: one row per page size and LRU geometry (page_bytes,
    sets, ways, entries, accesses, misses, miss_ratio)."""
    text = _text(_call(_lib.tlbsim_mrc, _b(trace, "trace", optional=False), _b(trace_format, "trace_format"),
                       _b(page_sizes, "page_sizes"), _int(max_entries, "max_entries", _U32)))
    return _rows(_csv_rows(text), frame)


def chase(footprints, stride, preset="h200", config=None, sets=(), page_size=0, order="seq",
          mapping="contiguous", frame=None):
    """`tlbsim chase`: one row per footprint (the OSTEP TLB curve when the
    footprints sweep and stride is a page), keyed as its CSV columns."""
    if isinstance(footprints, (int, str)):
        footprints = [footprints]
    elif not isinstance(footprints, (list, tuple, range)):
        raise TypeError(f"footprints must be a size or a list of them, not {type(footprints).__name__}")
    with Machine(preset, config, sets) as m:
        rows = m.chase_rows(footprints, stride, page_size, order, mapping)
    return _rows(rows, frame)


def alloc(trace=None, policies=("cuda", "caching", "expandable"), capacity=None, preset=None, sets=(),
          trace_format=None, synthetic=None, frame=None, input_format=None):
    """`tlbsim alloc --format json`: one row per allocator policy (policy,
    peak_reserved_bytes, peak_allocated_bytes, driver_allocs, driver_frees,
    ooms, first_oom_event, first_oom_reason, external_fragmentation_max,
    ...; a snapshot's own numbers under "recorded"). trace: a PyTorch
    snapshot, RMM log or native trace (trace_format auto, snapshot, rmm or
    native, as alloc --trace-format; input_format is its older name); or
    synthetic="requests=40,seed=3" ("" for the defaults), the generated
    workload. capacity: bytes or a size ("80G"); sets: "vas.KEY=VALUE"
    allocator parameters as alloc --set."""
    if (trace is None) == (synthetic is None):
        raise Error("tlbsim.alloc: a trace or synthetic=SPEC, not both or neither")
    if trace_format is not None and input_format is not None:
        raise TypeError("tlbsim.alloc: trace_format or its older name input_format, not both")
    fmt = trace_format if trace_format is not None else input_format
    source, fmt = (trace, fmt) if synthetic is None else (synthetic, "synthetic")
    text = _text(_call(_lib.tlbsim_alloc, _b(source, "trace"), _b(fmt, "trace_format"),
                       *_strings(policies, "policies"), _b(preset, "preset"),
                       0 if capacity is None else _size(capacity, "capacity"), *_strings(sets, "sets")))
    rows = json.loads(text)
    return _rows(rows if isinstance(rows, list) else [rows], frame)
