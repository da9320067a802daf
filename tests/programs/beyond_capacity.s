# Directed test: the int8_matmul program with every HBM address 4 GiB up, past
# the capacity of one HBM2 stack: each request wraps to the lower address it
# aliases and is counted (hbm_requests_beyond_capacity), with a warning.
dma_load rows=2 cols=2 sp_row=0 hbm_addr=0x100001000 hbm_stride=32
dma_load rows=2 cols=2 sp_row=2 hbm_addr=0x100002000 hbm_stride=32
load_weights rows=2 cols=2 sp_row=0 dtype=int8 buf=0 wait_dma=1
matmul rows=2 cols=2 sp_row=2 acc_row=0 dtype=int8 buf=0 wait_dma=0
output rows=2 cols=2 sp_row=8 acc_row=0 dtype=int8
dma_store rows=2 cols=8 sp_row=8 hbm_addr=0x100003000 hbm_stride=32 wait_compute=0
