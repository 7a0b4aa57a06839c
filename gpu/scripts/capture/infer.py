"""infer.py — a PyTorch inference loop that allocates per request, for the
driver-time check of tlbsim alloc (issue #25, "What the allocations cost in
time").

Usage: python3 infer.py OUT_PREFIX [--requests N]
The MLP stack of train.py (6 blocks of 2048 -> 8192 -> 2048, fp32) answers N
requests (default 400) of varying batch size, each a fresh input tensor, a
forward pass and its result copied to the host (.item(), as a server returns
an answer). The allocator's mode comes from the environment the caller sets
(PYTORCH_NO_CUDA_MEMORY_CACHING=1: every tensor a cudaMalloc and cudaFree).
20 warm-up requests come first; the timed loop is bracketed by two empty
kernels named tlbsim_loop_begin and tlbsim_loop_end (CuPy RawKernels), so a
capture's kernel marks say which records fall inside it. Writes
OUT_PREFIX.json: the loop's wall time, each request's time, the batch sizes,
peak reserved and allocated bytes.
"""
import json
import os
import sys
import time

import cupy
import torch

BRACKET = r"""
extern "C" __global__ void tlbsim_loop_begin() {}
extern "C" __global__ void tlbsim_loop_end() {}
"""


def main():
    out = sys.argv[1]
    requests = int(sys.argv[sys.argv.index("--requests") + 1]) if "--requests" in sys.argv else 400
    torch.manual_seed(0)
    dev = torch.device("cuda")
    width, depth = 2048, 6
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, 4 * width), torch.nn.GELU(), torch.nn.Linear(4 * width, width),
                   torch.nn.LayerNorm(width)]
    model = torch.nn.Sequential(*layers).to(dev).eval()
    batches = [1, 8, 32, 4, 128, 16, 64, 2, 256, 48, 512, 24]
    module = cupy.RawModule(code=BRACKET)
    begin, end = module.get_function("tlbsim_loop_begin"), module.get_function("tlbsim_loop_end")
    times = []
    with torch.inference_mode():
        for i in range(20):
            model(torch.randn(batches[i % len(batches)], width, device=dev)).sum().item()
        torch.cuda.synchronize()
        begin((1,), (1,), ())
        cupy.cuda.Device().synchronize()
        t0 = time.perf_counter()
        for i in range(requests):
            t = time.perf_counter()
            x = torch.randn(batches[i % len(batches)], width, device=dev)
            model(x).sum().item()
            del x
            times.append(time.perf_counter() - t)
        total = time.perf_counter() - t0
        end((1,), (1,), ())
        cupy.cuda.Device().synchronize()
    doc = {
        "requests": requests,
        "loop_s": total,
        "request_s": times,
        "batches": [batches[i % len(batches)] for i in range(requests)],
        "no_caching": os.environ.get("PYTORCH_NO_CUDA_MEMORY_CACHING", "") == "1",
        "max_memory_reserved": torch.cuda.max_memory_reserved(),
        "max_memory_allocated": torch.cuda.max_memory_allocated(),
        "torch": torch.__version__,
        "cupy": cupy.__version__,
        "device": torch.cuda.get_device_name(),
    }
    with open(out + ".json", "w") as f:
        json.dump(doc, f)
    print("%s: %d requests in %.4f s (%.3f ms each)" % (out, requests, total, 1000 * total / requests))


if __name__ == "__main__":
    main()
