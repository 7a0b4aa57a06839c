MemcpyHtoD,0x00007f2599e00000,32768
kernel-1.traceg
