// ICI unit: ICI_SEND streams scratchpad rows to another chip; ICI_WAIT waits
// for inbound rows. Inbound rows are written as they arrive, independently of
// any instruction: to a scratchpad row, or added into an accumulator row.
//
// Outbound stream (one beat per row): destination chip, destination row,
// whether that row is an accumulator row, the data type for accumulation,
// the number of valid bytes, last-row-of-the-send flag, and the row data.
// Inbound stream: the same fields less the destination chip.
//
// Timing: pop in IDLE at the next edge. ICI_SEND reads rows on consecutive
// edges while its three-row output buffer holds at most two rows counting
// the read in flight; a row read at edge t is offered from t+1 and held
// until out_ready, so with out_ready high a row leaves every cycle; done
// pulses with the handshake of the last row. ICI_WAIT completes at the first
// edge where the inbound rows counted since the last wait reach `rows`, and
// consumes that many.
module mxu_ici
  import mxu_isa_pkg::*;
#(
    parameter int COLS      = 4,
    parameter int ACC_ROWS  = 256,
    parameter int SP_ROWS   = 1024,
    parameter int ROW_BYTES = 32,
    localparam int AW       = $clog2(ACC_ROWS),
    localparam int SAW      = $clog2(SP_ROWS)
) (
    input  logic                   clk,
    input  logic                   rst_n,
    input  logic                   q_valid,
    input  logic [INSTR_W-1:0]     q_instr,
    output logic                   q_pop,
    output logic                   done,
    output logic                   busy,
    output logic                   stall_credit,   // a row offered and refused
    output logic                   stall_wait,     // ICI_WAIT waiting for inbound rows
    // scratchpad read (sends)
    output logic                   sp_rd_en,
    output logic [SAW-1:0]         sp_rd_row,
    input  logic [ROW_BYTES*8-1:0] sp_rd_data,
    // outbound stream
    output logic                   out_valid,
    input  logic                   out_ready,
    output logic [7:0]             out_dst,
    output logic [15:0]            out_row,
    output logic                   out_to_acc,
    output logic                   out_bf16,
    output logic [15:0]            out_bytes,
    output logic                   out_last,
    output logic [ROW_BYTES*8-1:0] out_data,
    // inbound stream
    input  logic                   in_valid,
    output logic                   in_ready,
    input  logic [15:0]            in_row,
    input  logic                   in_to_acc,
    input  logic                   in_bf16,
    input  logic [15:0]            in_bytes,
    input  logic                   in_last,
    input  logic [ROW_BYTES*8-1:0] in_data,
    // inbound rows to the scratchpad
    output logic                   sp_wr_valid,
    input  logic                   sp_wr_ready,
    output logic [SAW-1:0]         sp_wr_row,
    output logic [ROW_BYTES*8-1:0] sp_wr_data,
    output logic [ROW_BYTES-1:0]   sp_wr_strb,
    // inbound rows into the accumulators
    output logic                   acc_valid,
    input  logic                   acc_ready,
    output logic [AW-1:0]          acc_addr,
    output logic                   acc_bf16,
    output logic [COLS-1:0]        acc_elem_en,
    output logic [COLS*32-1:0]     acc_data
);
  typedef enum logic [1:0] {IDLE, SEND, WAIT_IN} state_t;
  state_t state;

  logic [15:0] n_rows, n_cols, sp_row, remote_row;
  logic [7:0]  dst;
  logic        to_acc, bf16;
  logic [15:0] issued;

  // ---- inbound ----
  assign sp_wr_valid = in_valid && !in_to_acc;
  assign acc_valid   = in_valid && in_to_acc;
  assign in_ready    = in_to_acc ? acc_ready : sp_wr_ready;
  assign sp_wr_row   = SAW'(in_row);
  assign sp_wr_data  = in_data;
  assign acc_addr    = AW'(in_row);
  assign acc_bf16    = in_bf16;
  assign acc_data    = in_data[COLS*32-1:0];
  always_comb begin
    for (int i = 0; i < ROW_BYTES; i++) sp_wr_strb[i] = 16'(i) < in_bytes;
    for (int c = 0; c < COLS; c++) acc_elem_en[c] = 16'(c * 4) < in_bytes;
  end

  logic        in_fire;
  logic [31:0] arrived;
  assign in_fire = in_valid && in_ready;

  logic consume;
  assign consume    = state == WAIT_IN && arrived >= 32'(n_rows);
  assign stall_wait = state == WAIT_IN && !consume;

  always_ff @(posedge clk) begin
    if (!rst_n) arrived <= '0;
    else arrived <= arrived + 32'(in_fire) - (consume ? 32'(n_rows) : 32'd0);
  end

  // ---- outbound: three-row buffer fed by scratchpad reads ----
  // A read's row enters the buffer one edge later, so a read is issued only
  // while buffer + read in flight <= 2: the buffer then never overflows
  // whatever out_ready does, and sp_rd_en does not depend on out_ready. With
  // out_ready high the buffer holds one row and the read in flight another,
  // so a row is read and one sent every cycle. (Two rows, read only below 2
  // in all, settle at two reads in every three cycles: the row leaving in
  // the cycle of a read is not counted.)
  localparam int BW = ROW_BYTES * 8 + 16 + 1;
  logic          rd_pending, fifo_empty, fifo_full, fifo_pop;
  logic [1:0]    fifo_count;
  logic [BW-1:0] fifo_head;
  logic [15:0]   rd_idx;

  assign sp_rd_en  = state == SEND && issued < n_rows && (32'(fifo_count) + 32'(rd_pending)) <= 2;
  assign sp_rd_row = SAW'(sp_row + issued);

  always_ff @(posedge clk) begin
    if (!rst_n) rd_pending <= 1'b0;
    else rd_pending <= sp_rd_en;
    rd_idx <= issued;
  end

  mxu_fifo #(.W(BW), .DEPTH(3)) out_buf (
      .clk      (clk),
      .rst_n    (rst_n),
      .push     (rd_pending),
      .push_data({sp_rd_data, rd_idx, rd_idx == n_rows - 1'b1}),
      .pop      (fifo_pop),
      .head     (fifo_head),
      .empty    (fifo_empty),
      .full     (fifo_full),
      .count    (fifo_count)
  );

  assign out_valid    = !fifo_empty;
  assign fifo_pop     = out_valid && out_ready;
  assign out_data     = fifo_head[BW-1 -: ROW_BYTES*8];
  assign out_row      = remote_row + fifo_head[16:1];
  assign out_last     = fifo_head[0];
`ifdef MXCOSIM_MUTANT_ICI_WRONG_CHIP
  // Mutant: the destination chip's lowest bit is flipped.
  assign out_dst      = dst ^ 8'd1;
`else
  assign out_dst      = dst;
`endif
  assign out_to_acc   = to_acc;
  assign out_bf16     = bf16;
  assign out_bytes    = n_cols;
  assign stall_credit = out_valid && !out_ready;

  // ---- instruction sequencing ----
  assign q_pop = state == IDLE && q_valid;
  assign busy  = state != IDLE;
  assign done  = (state == SEND && fifo_pop && out_last) || consume;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      state <= IDLE;
    end else begin
      unique case (state)
        IDLE:
          if (q_valid) begin
            n_rows     <= q_instr[F_ROWS_LSB +: F_ROWS_W];
            n_cols     <= q_instr[F_COLS_LSB +: F_COLS_W];
            sp_row     <= q_instr[F_SP_ROW_LSB +: F_SP_ROW_W];
            remote_row <= q_instr[F_REMOTE_ROW_LSB +: F_REMOTE_ROW_W];
            dst        <= q_instr[F_DST_CHIP_LSB +: F_DST_CHIP_W];
            to_acc     <= q_instr[F_TO_ACC_LSB];
            bf16       <= q_instr[F_DTYPE_LSB];
            issued     <= '0;
            state      <= (q_instr[F_OPCODE_LSB +: F_OPCODE_W] == OP_ICI_SEND) ? SEND : WAIT_IN;
          end
        SEND: begin
          if (sp_rd_en) issued <= issued + 1'b1;
          if (fifo_pop && out_last) state <= IDLE;
        end
        WAIT_IN: if (consume) state <= IDLE;
        default: state <= IDLE;
      endcase
    end
  end

  // Inputs only partly used: row numbers wider than the memories, data past
  // the accumulator width.
  logic unused;
  assign unused = in_last ^ fifo_full ^ (^in_row) ^ (^in_data);
endmodule
