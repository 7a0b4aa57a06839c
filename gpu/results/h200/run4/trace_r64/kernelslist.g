MemcpyHtoD,0x00007f01ebe00000,32768
kernel-1.traceg
