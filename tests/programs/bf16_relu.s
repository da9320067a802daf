# Directed test: bf16 matmul, then OUTPUT with ReLU and conversion to bf16.
# HBM before: W = [[1.0, 2.0], [0.5, -1.0]] (0x3f80 0x4000 / 0x3f00 0xbf80)
#             rows at 0x1000 and 0x1020; x = [1.0, 4.0] (0x3f80 0x4080) at 0x2000.
# x . W = [1 + 2, 2 - 4] = [3.0, -2.0]; ReLU -> [3.0, 0.0]:
# HBM after:  0x4040 0x0000 (bf16, little-endian) at 0x3000.
dma_load rows=2 cols=4 sp_row=0 hbm_addr=0x1000 hbm_stride=32
dma_load rows=1 cols=4 sp_row=4 hbm_addr=0x2000 hbm_stride=32
load_weights rows=2 cols=2 sp_row=0 dtype=bf16 buf=1 wait_dma=1
matmul rows=1 cols=2 sp_row=4 acc_row=3 dtype=bf16 buf=1 wait_dma=0
output rows=1 cols=2 sp_row=9 acc_row=3 dtype=bf16 convert relu
dma_store rows=1 cols=4 sp_row=9 hbm_addr=0x3000 hbm_stride=0x20 wait_compute=0
