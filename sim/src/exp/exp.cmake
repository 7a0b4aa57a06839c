# The GPU suite's experiments as both sides must define them alike: what
# tlbsim-gpu runs on the device (gpu/) and what the simulator predicts of
# it (chase, gather, layout, region, uvm_suite, kembed) are built from this
# one code, so addresses, orders and ids agree exactly. Plain C; gpu/ links
# it, nothing here knows of gpu/. gpu_embed_sass.c is generated from the
# embed kernels' listing (gpu/scripts/embed_sass.py, gpu/src/gpu_embed.sass).
tlbsim_module(exp SOURCES gpu_chain.c gpu_plan.c gpu_gather.c gpu_uvm.c gpu_embed.c gpu_accel.c gpu_embed_sass.c
  DEPS tlbsim_base tlbsim_rows m)
