// MXU core: the systolic array and its accumulator memory.
//
// Ports (all sampled at the rising edge of clk):
//   weight load:  w_valid shifts one weight row w_data (COLS x 16 bit) into
//                 buffer w_buf.
//   activations:  in_valid streams one vector in_data (ROWS x 16 bit) of type
//                 in_bf16, computed with weight buffer in_sel; its result is
//                 written to accumulator row in_acc_addr (added when
//                 in_accumulate) PIPE_LATENCY = ROWS + COLS edges later.
//   ici accumulate: ia_* adds an inbound row into the accumulators when no
//                 write-back happens that cycle (ia_ready).
//   read-out:     rd_en / rd_addr -> rd_data after the sampling edge.
//   status:       inflight[b] = vectors using weight buffer b not yet written
//                 back; a load into buffer b is safe only while it is zero.
module mxu_core #(
    parameter int ROWS     = 4,
    parameter int COLS     = 4,
    parameter int ACC_ROWS = 256,
    localparam int AW      = $clog2(ACC_ROWS),
    localparam int CW      = $clog2(ROWS + COLS + 2)
) (
    input  logic               clk,
    input  logic               rst_n,
    input  logic               w_valid,
    input  logic               w_buf,
    input  logic [COLS*16-1:0] w_data,
    input  logic               in_valid,
    input  logic [ROWS*16-1:0] in_data,
    input  logic               in_sel,
    input  logic               in_bf16,
    input  logic [AW-1:0]      in_acc_addr,
    input  logic               in_accumulate,
    input  logic               ia_valid,
    output logic               ia_ready,
    input  logic [AW-1:0]      ia_addr,
    input  logic               ia_bf16,
    input  logic [COLS-1:0]    ia_elem_en,
    input  logic [COLS*32-1:0] ia_data,
    input  logic               rd_en,
    input  logic [AW-1:0]      rd_addr,
    output logic [COLS*32-1:0] rd_data,
    output logic [CW-1:0]      inflight0,
    output logic [CW-1:0]      inflight1
);
  // Edges from sampling in_valid to the accumulator write (see mxu_array).
  localparam int PIPE_LATENCY = ROWS + COLS;

  logic [COLS*32-1:0] array_out;

  mxu_array #(.ROWS(ROWS), .COLS(COLS)) array (
      .clk     (clk),
      .rst_n   (rst_n),
      .in_valid(in_valid),
      .in_data (in_data),
      .in_sel  (in_sel),
      .in_bf16 (in_bf16),
      .w_shift (w_valid),
      .w_buf   (w_buf),
      .w_data  (w_data),
      .out_data(array_out)
  );

  // Write-back metadata travels beside the data through the array latency.
  typedef struct packed {
    logic          valid;
    logic          sel;
    logic          bf16;
    logic          accumulate;
    logic [AW-1:0] addr;
  } meta_t;
  meta_t meta[PIPE_LATENCY];

  always_ff @(posedge clk) begin
    if (!rst_n) meta[0] <= '0;
    else meta[0] <= '{valid: in_valid, sel: in_sel, bf16: in_bf16, accumulate: in_accumulate, addr: in_acc_addr};
  end
  for (genvar s = 1; s < PIPE_LATENCY; s++) begin : g_meta
    always_ff @(posedge clk) begin
      if (!rst_n) meta[s] <= '0;
      else meta[s] <= meta[s-1];
    end
  end

  meta_t wb;
  assign wb = meta[PIPE_LATENCY-1];

  mxu_accumulators #(.COLS(COLS), .ACC_ROWS(ACC_ROWS)) acc (
      .clk          (clk),
      .wb_en        (wb.valid),
      .wb_addr      (wb.addr),
      .wb_accumulate(wb.accumulate),
      .wb_bf16      (wb.bf16),
      .wb_data      (array_out),
      .ia_valid     (ia_valid),
      .ia_ready     (ia_ready),
      .ia_addr      (ia_addr),
      .ia_bf16      (ia_bf16),
      .ia_elem_en   (ia_elem_en),
      .ia_data      (ia_data),
      .rd_en        (rd_en),
      .rd_addr      (rd_addr),
      .rd_data      (rd_data)
  );

  // In-flight counters per weight buffer: +1 at entry, -1 at write-back.
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      inflight0 <= '0;
      inflight1 <= '0;
    end else begin
      inflight0 <= inflight0 + CW'(in_valid && !in_sel) - CW'(wb.valid && !wb.sel);
      inflight1 <= inflight1 + CW'(in_valid && in_sel) - CW'(wb.valid && wb.sel);
    end
  end
endmodule
