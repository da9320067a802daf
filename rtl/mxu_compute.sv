// Compute unit: executes LOAD_WEIGHTS, MATMUL and OUTPUT from its queue, one
// at a time, in order, driving the MXU core.
//
// Timing (every step is one clock edge):
//   pop:  in IDLE with a queued instruction, it is taken at the next edge.
//   WAIT: LOAD_WEIGHTS waits until no vector in flight uses its buffer;
//         OUTPUT waits until no vector is in flight at all (accumulators
//         final); MATMUL does not wait. The check takes at least one cycle.
//   RUN:  N reads are issued on N consecutive edges (N = ROWS for
//         LOAD_WEIGHTS, `rows` otherwise); the data of each read is used on
//         the following edge: a weight row shifted in (rows past `rows` are
//         zero and need no read), a vector entering the array, or a converted
//         row written to the scratchpad. `done` pulses with the last use.
// Elements past `cols` read as zero. Scratchpad layout of a row: int8
// element i at byte i, bf16 element i at bytes 2i..2i+1 (little-endian);
// OUTPUT writes raw 32-bit values at bytes 4i.., int8 at byte i, bf16 at 2i.
module mxu_compute
  import mxu_isa_pkg::*;
#(
    parameter int ROWS      = 4,
    parameter int COLS      = 4,
    parameter int ACC_ROWS  = 256,
    parameter int SP_ROWS   = 1024,
    parameter int ROW_BYTES = 32,
    localparam int AW       = $clog2(ACC_ROWS),
    localparam int SAW      = $clog2(SP_ROWS),
    localparam int CW       = $clog2(ROWS + COLS + 2)
) (
    input  logic                   clk,
    input  logic                   rst_n,
    // instruction queue
    input  logic                   q_valid,
    input  logic [INSTR_W-1:0]     q_instr,
    output logic                   q_pop,
    output logic                   done,
    output logic                   busy,
    output logic                   stall_weights,   // LOAD_WEIGHTS waiting for its buffer
    output logic                   stall_drain,     // OUTPUT waiting for the array to drain
    // scratchpad
    output logic                   sp_rd_en,
    output logic [SAW-1:0]         sp_rd_row,
    input  logic [ROW_BYTES*8-1:0] sp_rd_data,
    output logic                   sp_wr_en,
    output logic [SAW-1:0]         sp_wr_row,
    output logic [ROW_BYTES*8-1:0] sp_wr_data,
    output logic [ROW_BYTES-1:0]   sp_wr_strb,
    // MXU core
    output logic                   w_valid,
    output logic                   w_buf,
    output logic [COLS*16-1:0]     w_data,
    output logic                   in_valid,
    output logic [ROWS*16-1:0]     in_data,
    output logic                   in_sel,
    output logic                   in_bf16,
    output logic [AW-1:0]          in_acc_addr,
    output logic                   in_accumulate,
    output logic                   acc_rd_en,
    output logic [AW-1:0]          acc_rd_addr,
    input  logic [COLS*32-1:0]     acc_rd_data,
    input  logic [CW-1:0]          inflight0,
    input  logic [CW-1:0]          inflight1
);
  typedef enum logic [1:0] {IDLE, WAIT, RUN} state_t;
  state_t state;

  // The instruction being executed.
  logic [3:0]  op;
  logic [15:0] n_rows, n_cols, sp_row, acc_row;
  logic        buf_sel, bf16, accumulate, relu, convert;
  logic [4:0]  shift;

  logic [15:0] issued;   // reads issued so far
  logic [15:0] total;    // reads to issue
  assign total = (op == OP_LOAD_WEIGHTS) ? 16'(ROWS) : n_rows;

  // Stage 2: the read issued last edge, used this cycle.
  logic        s2_valid, s2_last, s2_zero;
  logic [15:0] s2_idx;

  assign busy          = state != IDLE;
  assign q_pop         = state == IDLE && q_valid;
  assign stall_weights = state == WAIT && op == OP_LOAD_WEIGHTS;
  assign stall_drain   = state == WAIT && op == OP_OUTPUT;

  logic ready_to_run;
  always_comb begin
    if (op == OP_LOAD_WEIGHTS) ready_to_run = (buf_sel ? inflight1 : inflight0) == '0;
    else ready_to_run = inflight0 == '0 && inflight1 == '0;
  end
`ifdef MXCOSIM_MUTANT_COMPUTE_EXTRA_STALL
  logic ready_q;
  always_ff @(posedge clk) ready_q <= state == WAIT && ready_to_run;
`endif

  // Read issue.
  logic        issue;
  logic [15:0] lw_row;   // weight row index for LOAD_WEIGHTS: ROWS-1 first
  assign issue  = state == RUN && issued < total;
  assign lw_row = 16'(ROWS - 1) - issued;

  always_comb begin
    sp_rd_en    = 1'b0;
    sp_rd_row   = '0;
    acc_rd_en   = 1'b0;
    acc_rd_addr = '0;
    if (issue) begin
      unique case (op)
        OP_LOAD_WEIGHTS: begin
          sp_rd_en  = lw_row < n_rows;
          sp_rd_row = SAW'(sp_row + lw_row);
        end
        OP_MATMUL: begin
          sp_rd_en  = 1'b1;
          sp_rd_row = SAW'(sp_row + issued);
        end
        default: begin
          acc_rd_en   = 1'b1;
          acc_rd_addr = AW'(acc_row + issued);
        end
      endcase
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      state    <= IDLE;
      s2_valid <= 1'b0;
    end else begin
      s2_valid <= issue;
      unique case (state)
        IDLE:
          if (q_valid) begin
            op         <= q_instr[F_OPCODE_LSB +: F_OPCODE_W];
            n_rows     <= q_instr[F_ROWS_LSB +: F_ROWS_W];
            n_cols     <= q_instr[F_COLS_LSB +: F_COLS_W];
            sp_row     <= q_instr[F_SP_ROW_LSB +: F_SP_ROW_W];
            acc_row    <= q_instr[F_ACC_ROW_LSB +: F_ACC_ROW_W];
            buf_sel    <= q_instr[F_BUF_LSB];
            bf16       <= q_instr[F_DTYPE_LSB];
            accumulate <= q_instr[F_ACCUMULATE_LSB];
            relu       <= q_instr[F_RELU_LSB];
            convert    <= q_instr[F_CONVERT_LSB];
            shift      <= q_instr[F_SHIFT_LSB +: F_SHIFT_W];
            issued     <= '0;
            state      <= (q_instr[F_OPCODE_LSB +: F_OPCODE_W] == OP_MATMUL) ? RUN : WAIT;
          end
`ifdef MXCOSIM_MUTANT_COMPUTE_EXTRA_STALL
        // Mutant: the ready check is registered, one more cycle in WAIT.
        WAIT: if (ready_q) state <= RUN;
`else
        WAIT: if (ready_to_run) state <= RUN;
`endif
        RUN: begin
          if (issue) issued <= issued + 1'b1;
          if (s2_valid && s2_last) state <= IDLE;
        end
        default: state <= IDLE;
      endcase
    end
  end

  always_ff @(posedge clk) begin
    s2_idx  <= issued;
    s2_last <= issued == total - 1'b1;
    s2_zero <= op == OP_LOAD_WEIGHTS && lw_row >= n_rows;
  end

  assign done = s2_valid && s2_last;

  // Elements of a scratchpad row as 16-bit lanes (elements past n_cols are zero).
  function automatic logic [15:0] element(input logic [ROW_BYTES*8-1:0] row, input int i,
                                          input logic is_bf16, input logic [15:0] count);
    if (16'(i) >= count) return 16'd0;
    return is_bf16 ? row[i*16 +: 16] : {8'd0, row[i*8 +: 8]};
  endfunction

  // Lanes are extracted only in a cycle that feeds the array.
  always_comb begin
    w_data  = '0;
    in_data = '0;
    if (s2_valid) begin
      for (int c = 0; c < COLS; c++) w_data[c*16 +: 16] = s2_zero ? 16'd0 : element(sp_rd_data, c, bf16, n_cols);
      for (int r = 0; r < ROWS; r++) in_data[r*16 +: 16] = element(sp_rd_data, r, bf16, n_cols);
    end
  end

  assign w_valid       = s2_valid && op == OP_LOAD_WEIGHTS;
  assign w_buf         = buf_sel;
  assign in_valid      = s2_valid && op == OP_MATMUL;
`ifdef MXCOSIM_MUTANT_WEIGHT_SELECT_LATE
  // Mutant: the weight-buffer select follows the previous vector's, so the
  // first vector after a buffer swap still uses the old buffer.
  logic last_sel;
  always_ff @(posedge clk) begin
    if (in_valid) last_sel <= buf_sel;
  end
  assign in_sel        = s2_idx == 16'd0 ? last_sel : buf_sel;
`else
  assign in_sel        = buf_sel;
`endif
  assign in_bf16       = bf16;
`ifdef MXCOSIM_MUTANT_ACC_WRONG_ROW
  // Mutant: the accumulator row comes from the issue counter, one stage ahead
  // of the vector it belongs to.
  assign in_acc_addr   = AW'(acc_row + issued);
`else
  assign in_acc_addr   = AW'(acc_row + s2_idx);
`endif
  assign in_accumulate = accumulate;

  // Output stage: ReLU, then raw or narrowed, per column; evaluated only in
  // a cycle that writes (the conversions are function calls under the if).
  logic [ROW_BYTES*8-1:0] out_row;
  logic [ROW_BYTES-1:0]   out_strb;
  always_comb begin
    logic [31:0] value;
    value    = '0;
    out_row  = '0;
    out_strb = '0;
    if (sp_wr_en) begin
      for (int c = 0; c < COLS; c++) begin
        if (16'(c) < n_cols) begin
          value = acc_rd_data[c*32 +: 32];
          if (relu) value = mxu_fp_pkg::relu(value, bf16);
          if (!convert) begin
            out_row[c*32 +: 32] = value;
            out_strb[c*4 +: 4]  = 4'hf;
          end else if (bf16) begin
            out_row[c*16 +: 16] = mxu_fp_pkg::fp32_to_bf16(value);
            out_strb[c*2 +: 2]  = 2'h3;
          end else begin
            out_row[c*8 +: 8] = mxu_fp_pkg::int32_to_int8(value, shift);
            out_strb[c]       = 1'b1;
          end
        end
      end
    end
  end

  assign sp_wr_en   = s2_valid && op == OP_OUTPUT;
  assign sp_wr_row  = SAW'(sp_row + s2_idx);
  assign sp_wr_data = out_row;
  assign sp_wr_strb = out_strb;
endmodule
