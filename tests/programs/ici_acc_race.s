# Adds a row into the chip's own accumulators over ICI (to_acc), then lets a
# MATMUL overwrite them before an ICI_WAIT has counted the row: the row is
# added whenever it arrives, after the 200 rows sent before it, so before or
# after the MATMUL's results, and the result depends on timing. The program
# is refused before any run with both lines and the wait that would close
# the race (tests/cosim, tests/workloads); ici_acc_add.s waits for the row.
dma_load rows=2 cols=2 sp_row=0 hbm_addr=0x1000 hbm_stride=32
dma_load rows=1 cols=2 sp_row=2 hbm_addr=0x2000 hbm_stride=32
dma_load rows=1 cols=8 sp_row=3 hbm_addr=0x4000 hbm_stride=32
load_weights rows=2 cols=2 sp_row=0 dtype=int8 buf=0 wait_dma=2
matmul rows=1 cols=2 sp_row=2 acc_row=0 dtype=int8 buf=0 wait_dma=1
fence
ici_send rows=200 cols=8 sp_row=100 dst_chip=0 remote_row=400
ici_send rows=1 cols=8 sp_row=3 dst_chip=0 remote_row=0 to_acc
matmul rows=1 cols=2 sp_row=2 acc_row=0 dtype=int8 buf=0
ici_wait rows=201
output rows=1 cols=2 sp_row=8 acc_row=0 dtype=int8 wait_ici=0
dma_store rows=1 cols=8 sp_row=8 hbm_addr=0x3000 hbm_stride=32 wait_compute=0
