// Generated from models/mxu/isa.def by mxcosim_gen_isa_sv; do not edit.
// The test isa_package_is_generated checks that this file is up to date.
// Not every user needs every constant.
/* verilator lint_off UNUSEDPARAM */
package mxu_isa_pkg;
  localparam int INSTR_W = 256;
  localparam logic [3:0] WAIT_NONE = 4'd15;

  // Opcodes
  localparam logic [3:0] OP_NOP = 4'd0;  // none: no operation (its wait bits still apply)
  localparam logic [3:0] OP_DMA_LOAD = 4'd1;  // dma: rows x cols bytes from HBM (hbm_addr, hbm_stride) to scratchpad rows from sp_row
  localparam logic [3:0] OP_DMA_STORE = 4'd2;  // dma: rows x cols bytes from scratchpad rows from sp_row to HBM (hbm_addr, hbm_stride)
  localparam logic [3:0] OP_LOAD_WEIGHTS = 4'd3;  // compute: rows (K) x cols (N) weights of dtype from scratchpad rows from sp_row into weight buffer buf
  localparam logic [3:0] OP_MATMUL = 4'd4;  // compute: rows vectors of cols (K) elements from scratchpad rows from sp_row through buffer buf into accumulator rows from acc_row
  localparam logic [3:0] OP_OUTPUT = 4'd5;  // compute: rows accumulator rows (cols elements) from acc_row to scratchpad rows from sp_row: raw or converted, optional ReLU
  localparam logic [3:0] OP_ICI_SEND = 4'd6;  // ici: rows scratchpad rows (cols bytes) from sp_row to chip dst_chip, row remote_row of its scratchpad or accumulators (to_acc)
  localparam logic [3:0] OP_ICI_WAIT = 4'd7;  // ici: wait until rows inbound rows have arrived since the last wait, and consume them
  localparam logic [3:0] OP_FENCE = 4'd8;  // none: wait until every unit is idle (as a NOP with every wait field 0)

  // Fields: bit position and width in the instruction word
  localparam int F_OPCODE_LSB = 0;
  localparam int F_OPCODE_W = 4;
  localparam int F_WAIT_DMA_LSB = 4;
  localparam int F_WAIT_DMA_W = 4;
  localparam int F_WAIT_COMPUTE_LSB = 8;
  localparam int F_WAIT_COMPUTE_W = 4;
  localparam int F_WAIT_ICI_LSB = 12;
  localparam int F_WAIT_ICI_W = 4;
  localparam int F_DTYPE_LSB = 16;
  localparam int F_DTYPE_W = 1;
  localparam int F_ACCUMULATE_LSB = 17;
  localparam int F_ACCUMULATE_W = 1;
  localparam int F_BUF_LSB = 18;
  localparam int F_BUF_W = 1;
  localparam int F_RELU_LSB = 19;
  localparam int F_RELU_W = 1;
  localparam int F_CONVERT_LSB = 20;
  localparam int F_CONVERT_W = 1;
  localparam int F_TO_ACC_LSB = 21;
  localparam int F_TO_ACC_W = 1;
  localparam int F_SHIFT_LSB = 24;
  localparam int F_SHIFT_W = 5;
  localparam int F_DST_CHIP_LSB = 32;
  localparam int F_DST_CHIP_W = 8;
  localparam int F_ROWS_LSB = 48;
  localparam int F_ROWS_W = 16;
  localparam int F_COLS_LSB = 64;
  localparam int F_COLS_W = 16;
  localparam int F_SP_ROW_LSB = 80;
  localparam int F_SP_ROW_W = 16;
  localparam int F_ACC_ROW_LSB = 96;
  localparam int F_ACC_ROW_W = 16;
  localparam int F_REMOTE_ROW_LSB = 112;
  localparam int F_REMOTE_ROW_W = 16;
  localparam int F_HBM_ADDR_LSB = 128;
  localparam int F_HBM_ADDR_W = 48;
  localparam int F_HBM_STRIDE_LSB = 176;
  localparam int F_HBM_STRIDE_W = 32;
endpackage
/* verilator lint_on UNUSEDPARAM */
