# stream/app.mk: keep the Copy loop a loop. GCC would otherwise turn it into a
# memcpy call, which moves data differently from the other kernels and
# inflates Copy (about 38 GB/s against 24 GB/s for Scale on the 2-core VM).
FILE_CFLAGS_stream/kernels = -fno-tree-loop-distribute-patterns
