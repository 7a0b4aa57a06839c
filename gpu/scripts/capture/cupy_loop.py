"""cupy_loop.py — a CuPy program whose memory pool tlbsim-capture records:
arrays of varying size made and dropped, a matmul and a reduction each round."""
import cupy as cp

for i in range(40):
    n = 256 * (1 + i % 7)
    a = cp.random.random((n, n), dtype=cp.float32)
    b = cp.random.random((n, n), dtype=cp.float32)
    c = (a @ b).sum()
    del a, b
    float(c)
cp.get_default_memory_pool().free_all_blocks()
print("cupy: done")
