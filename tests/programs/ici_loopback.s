# Directed test: a chip sends a scratchpad row to itself over ICI.
# HBM before: 32 bytes 0..31 at 0x1000. After: the same bytes at 0x2000.
dma_load rows=1 cols=32 sp_row=0 hbm_addr=0x1000 hbm_stride=32
ici_send rows=1 cols=32 sp_row=0 dst_chip=0 remote_row=7 wait_dma=0
ici_wait rows=1
dma_store rows=1 cols=32 sp_row=7 hbm_addr=0x2000 hbm_stride=32 wait_ici=0
fence
