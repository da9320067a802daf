# Directed test: a chip adds a row into its own accumulators over ICI
# (to_acc) after its MATMUL has written them back (the fence), and reads them
# once an ICI_WAIT has counted the row (wait_ici=0 on the OUTPUT).
# HBM before: W = [[1, 2], [3, -4]] rows at 0x1000 and 0x1020, x = [5, 6] at
#             0x2000, the int32 row [100, -200] at 0x4000.
# HBM after:  x . W + [100, -200] = [123, -214] as int32 at 0x3000.
dma_load rows=2 cols=2 sp_row=0 hbm_addr=0x1000 hbm_stride=32      # W -> sp rows 0..1
dma_load rows=1 cols=2 sp_row=2 hbm_addr=0x2000 hbm_stride=32      # x -> sp row 2
dma_load rows=1 cols=8 sp_row=3 hbm_addr=0x4000 hbm_stride=32      # the row to add -> sp row 3
load_weights rows=2 cols=2 sp_row=0 dtype=int8 buf=0 wait_dma=2
matmul rows=1 cols=2 sp_row=2 acc_row=0 dtype=int8 buf=0 wait_dma=1
fence                                                              # x . W in the accumulators
ici_send rows=1 cols=8 sp_row=3 dst_chip=0 remote_row=0 to_acc
ici_wait rows=1                                                    # the row has been added
output rows=1 cols=2 sp_row=8 acc_row=0 dtype=int8 wait_ici=0
dma_store rows=1 cols=8 sp_row=8 hbm_addr=0x3000 hbm_stride=32 wait_compute=0
