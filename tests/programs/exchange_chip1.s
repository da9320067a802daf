# Directed 2-chip test, chip 1's program (chip 0 runs exchange_chip0.s).
# Chip 1 sends chip 0 its two rows from 0x1000 and itself its first row, into row 30: its
# ICI_WAIT counts the 2 rows chip 0 sends it and its own, in whatever order they arrive.
# HBM of chip 1 after: chip 0's two rows from its 0x1000 at 0x2000, its own first row at 0x3000.
dma_load rows=2 cols=32 sp_row=0 hbm_addr=0x1000 hbm_stride=32
ici_send rows=2 cols=32 sp_row=0 dst_chip=0 remote_row=20 wait_dma=0
ici_send rows=1 cols=32 sp_row=0 dst_chip=1 remote_row=30
ici_wait rows=3
dma_store rows=2 cols=32 sp_row=20 hbm_addr=0x2000 hbm_stride=32 wait_ici=0
dma_store rows=1 cols=32 sp_row=30 hbm_addr=0x3000 hbm_stride=32 wait_ici=0
