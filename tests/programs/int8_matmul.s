# Directed test: a 2x2 int8 matmul on a tile with at least 2x2 PEs.
# HBM before: W = [[1, 2], [3, -4]] rows at 0x1000 and 0x1020,
#             X = [[5, 6], [-7, 8]] rows at 0x2000 and 0x2020.
# HBM after:  C = X x W = [[23, -14], [17, -46]] as int32 rows at 0x3000, 0x3020.
dma_load rows=2 cols=2 sp_row=0 hbm_addr=0x1000 hbm_stride=32      # W -> sp rows 0..1
dma_load rows=2 cols=2 sp_row=2 hbm_addr=0x2000 hbm_stride=32      # X -> sp rows 2..3
load_weights rows=2 cols=2 sp_row=0 dtype=int8 buf=0 wait_dma=1    # after the W load
matmul rows=2 cols=2 sp_row=2 acc_row=0 dtype=int8 buf=0 wait_dma=0
output rows=2 cols=2 sp_row=8 acc_row=0 dtype=int8
dma_store rows=2 cols=8 sp_row=8 hbm_addr=0x3000 hbm_stride=32 wait_compute=0
