# Directed 2-chip test, chip 0's program (chip 1 runs exchange_chip1.s):
#   mxcosim run --config configs/chip2x2_rtl.yaml --program exchange_chip0.s --program exchange_chip1.s
# Each chip sends the other the two rows it loads from 0x1000 with a plain ICI_SEND.
# HBM of chip 0 after: chip 1's two rows from its 0x1000 at 0x2000.
dma_load rows=2 cols=32 sp_row=0 hbm_addr=0x1000 hbm_stride=32
ici_send rows=2 cols=32 sp_row=0 dst_chip=1 remote_row=20 wait_dma=0
ici_wait rows=2
dma_store rows=2 cols=32 sp_row=20 hbm_addr=0x2000 hbm_stride=32 wait_ici=0
