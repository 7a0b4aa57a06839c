#!/usr/bin/env python3
"""Convert a PyTorch memory snapshot pickle to JSON that `tlbsim alloc` reads.

    python3 snapshot2json.py SNAPSHOT.pickle OUT.json[.gz] [--keep-frames]

The pickle is what torch.cuda.memory._dump_snapshot(path) writes after
torch.cuda.memory._record_memory_history(): a dict of plain lists, dicts,
strings and numbers (top level: segments, device_traces, allocator_settings).
Standard library only: no torch needed. The unpickler refuses every class, so
a pickle that is not such a snapshot cannot run code while it is read.

Stack frames are dropped unless --keep-frames: they are most of the bytes and
tlbsim does not use them. A name ending in .gz is written gzipped.
"""
import argparse
import gzip
import io
import json
import pickle
import sys


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(
            f"refusing {module}.{name}: a memory snapshot holds plain data only")


def load_pickle(path):
    with open(path, "rb") as f:
        return _PlainUnpickler(f).load()


def strip_frames(snapshot):
    """Remove 'frames' from trace entries, segments and blocks, in place."""
    for trace in snapshot.get("device_traces", []):
        for entry in trace:
            entry.pop("frames", None)
    for seg in snapshot.get("segments", []):
        seg.pop("frames", None)
        for block in seg.get("blocks", []):
            block.pop("frames", None)
    return snapshot


def write_json(snapshot, path):
    text = json.dumps(snapshot, default=str)
    if path.endswith(".gz"):
        # mtime=0: the same snapshot always gives the same bytes.
        with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
            gz.write(text.encode())
    else:
        with io.open(path, "w") as f:
            f.write(text)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pickle")
    ap.add_argument("out")
    ap.add_argument("--keep-frames", action="store_true")
    a = ap.parse_args(argv)
    try:
        snap = load_pickle(a.pickle)
    except (OSError, pickle.UnpicklingError, EOFError) as e:
        print(f"{a.pickle}: {e}", file=sys.stderr)
        return 1
    if not isinstance(snap, dict) or "device_traces" not in snap:
        print(f"{a.pickle}: not a memory snapshot with history (no 'device_traces'; "
              "record with torch.cuda.memory._record_memory_history())", file=sys.stderr)
        return 1
    if not a.keep_frames:
        strip_frames(snap)
    write_json(snap, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
