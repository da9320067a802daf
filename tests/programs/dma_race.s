# Reads rows a DMA load may still be writing: the load_weights has no
# wait_dma, so its result depends on timing, and the program is refused
# before any run with both lines and the wait that would close the race
# (tests/cosim, tests/workloads).
dma_load rows=4 cols=4 sp_row=0 hbm_addr=0x1000 hbm_stride=32
load_weights rows=4 cols=4 sp_row=0
