"""train.py — a PyTorch training loop whose allocations tlbsim-capture records.

Usage: python3 train.py OUT_PREFIX [--steps N] [--snapshot]
A small transformer-like MLP stack trained with AdamW on batches of varying
size (so the caching allocator splits, reuses and grows segments). The
allocator's mode comes from the environment the caller sets
(PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, PYTORCH_NO_CUDA_MEMORY_CACHING=1).
Writes OUT_PREFIX.json: per-step times (after warm-up), peak reserved and
allocated bytes, and with --snapshot PyTorch's own memory snapshot of the
same run (OUT_PREFIX.snapshot.pickle: segments, their sizes and addresses)
to compare the capture against.
"""
import json
import pickle
import sys
import time

import torch


def main():
    out = sys.argv[1]
    steps = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 30
    snapshot = "--snapshot" in sys.argv
    torch.manual_seed(0)
    dev = torch.device("cuda")
    if snapshot:
        torch.cuda.memory._record_memory_history(max_entries=1000000)
    width, depth = 2048, 6
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, 4 * width), torch.nn.GELU(), torch.nn.Linear(4 * width, width),
                   torch.nn.LayerNorm(width)]
    model = torch.nn.Sequential(*layers).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    batches = [256, 512, 384, 1024, 768, 640]
    times = []
    for step in range(steps):
        b = batches[step % len(batches)]
        x = torch.randn(b, width, device=dev)
        y = torch.randn(b, width, device=dev)
        torch.cuda.synchronize()
        t = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
        del x, y, loss
    result = {
        "steps": steps,
        "step_s": times,
        "max_memory_reserved": torch.cuda.max_memory_reserved(),
        "max_memory_allocated": torch.cuda.max_memory_allocated(),
        "memory_reserved_end": torch.cuda.memory_reserved(),
    }
    if snapshot:
        snap = torch.cuda.memory._snapshot()
        with open(out + ".snapshot.pickle", "wb") as f:
            pickle.dump(snap, f)
        segs = snap["segments"]
        result["snapshot_segments"] = [
            {"address": s["address"], "total_size": s["total_size"], "segment_type": s.get("segment_type"),
             "stream": s.get("stream")} for s in segs]
    with open(out + ".json", "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
