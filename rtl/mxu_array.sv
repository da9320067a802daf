// Weight-stationary systolic array, ROWS x COLS PEs (int8 or bf16 per
// vector), with input skew and output de-skew inside.
//
// Data flow: activation vector x (ROWS 16-bit elements, element r for array
// row r; int8 values in the low byte)
// enters at cycle t; row r sees it r cycles later, it moves one PE to the
// right per cycle, partial sums move one PE down per cycle. Column c's sum
// leaves the bottom row ROWS + c cycles after entry and is delayed by
// COLS - 1 - c cycles, so the whole output vector y (COLS 32-bit values,
// y[c] = sum_r x[r] * W[r][c], summed from row 0 down starting from +0)
// appears together ROWS + COLS - 1 edges after the entry edge.
//
// Weights: w_shift shifts one row (COLS 16-bit) in at the top of buffer w_buf;
// after ROWS shifts row r holds the row sent ROWS-1-r shifts ago. Each
// activation carries the buffer it uses (a_sel), so a load into one buffer
// never disturbs vectors in flight on the other.
module mxu_array #(
    parameter int ROWS = 4,
    parameter int COLS = 4
) (
    input  logic                   clk,
    input  logic                   in_valid,
    input  logic [ROWS*16-1:0]     in_data,
    input  logic                   in_sel,
    input  logic                   in_bf16,
    input  logic                   w_shift,
    input  logic                   w_buf,
    input  logic [COLS*16-1:0]     w_data,
    output logic [COLS*32-1:0]     out_data
);
  // a[r][c] / sel[r][c]: activation entering PE (r, c) from the left.
  logic [15:0] a   [ROWS][COLS+1];
  logic        sel [ROWS][COLS+1];
  logic        bf16[ROWS][COLS+1];
  // psum[r][c]: partial sum entering PE (r, c) from above.
  logic [31:0] psum[ROWS+1][COLS];
  // w[r][c]: weight entering PE (r, c) from above.
  logic [15:0] w   [ROWS+1][COLS];

  // Input skew: row r is delayed r cycles after the entry register.
  for (genvar r = 0; r < ROWS; r++) begin : g_skew
    logic [15:0] a_d   [r+1];
    logic        sel_d [r+1];
    logic        bf16_d[r+1];
    always_ff @(posedge clk) begin
      // Invalid cycles feed zeros (int8 mode) so the PEs add nothing.
      a_d[0]    <= in_valid ? in_data[r*16 +: 16] : 16'd0;
      sel_d[0]  <= in_sel;
      bf16_d[0] <= in_valid && in_bf16;
    end
    for (genvar s = 1; s <= r; s++) begin : g_stage
      always_ff @(posedge clk) begin
        a_d[s]    <= a_d[s-1];
        sel_d[s]  <= sel_d[s-1];
        bf16_d[s] <= bf16_d[s-1];
      end
    end
`ifdef MXCOSIM_MUTANT_SKEW_OFF_BY_ONE
    // Mutant: the last row's activations leave the skew one stage early.
    if (r == ROWS - 1 && r > 0) begin : g_mut_skew
      assign a[r][0] = a_d[r-1];
      logic unused_mut;
      assign unused_mut = ^a_d[r];
    end else begin : g_mut_noskew
      assign a[r][0] = a_d[r];
    end
`else
    assign a[r][0]    = a_d[r];
`endif
    assign sel[r][0]  = sel_d[r];
    assign bf16[r][0] = bf16_d[r];
  end

  for (genvar c = 0; c < COLS; c++) begin : g_top
    assign psum[0][c] = 32'd0;  // int 0 and fp32 +0.0
    assign w[0][c]    = w_data[c*16 +: 16];
  end

  for (genvar r = 0; r < ROWS; r++) begin : g_row
    for (genvar c = 0; c < COLS; c++) begin : g_col
      mxu_pe pe (
          .clk     (clk),
          .a_in    (a[r][c]),
          .sel_in  (sel[r][c]),
          .a_out   (a[r][c+1]),
          .sel_out (sel[r][c+1]),
          .bf16_in (bf16[r][c]),
          .bf16_out(bf16[r][c+1]),
          .psum_in (psum[r][c]),
          .psum_out(psum[r+1][c]),
          .w_shift (w_shift),
          .w_buf   (w_buf),
          .w_in    (w[r][c]),
          .w_out   (w[r+1][c])
      );
    end
  end

  // Output de-skew: column c waits COLS - 1 - c cycles.
  for (genvar c = 0; c < COLS; c++) begin : g_deskew
    localparam int DEPTH = COLS - 1 - c;
    if (DEPTH == 0) begin : g_none
      assign out_data[c*32 +: 32] = psum[ROWS][c];
    end else begin : g_delay
      logic [31:0] d[DEPTH];
      always_ff @(posedge clk) d[0] <= psum[ROWS][c];
      for (genvar s = 1; s < DEPTH; s++) begin : g_stage
        always_ff @(posedge clk) d[s] <= d[s-1];
      end
      assign out_data[c*32 +: 32] = d[DEPTH-1];
    end
  end

  // Unused ends of the chains (last column's activations, last row's weights).
  logic unused;
  always_comb begin
    unused = 1'b0;
    for (int r = 0; r < ROWS; r++) unused = unused ^ (^a[r][COLS]) ^ sel[r][COLS] ^ bf16[r][COLS];
    for (int c = 0; c < COLS; c++) unused = unused ^ (^w[ROWS][c]);
  end
endmodule
