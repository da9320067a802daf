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
// activation carries the buffer it uses (sel), so a load into one buffer
// never disturbs vectors in flight on the other.
//
// Coding style: the PE grid is one clocked process over register arrays,
// each PE's update the package function mxu_fp_pkg::pe_mac. The arrays are
// local to the process and updated in place in reverse order (bottom row
// first, rightmost column first), so every PE reads its neighbours' values
// from before the edge, exactly as flip-flops do. A simulator then runs one
// loop instead of ROWS x COLS module instances: Verilator keeps loops of more
// than 64 iterations as loops, which keeps a 128x128 array's generated code,
// build time and memory small (docs/rtl.md). Only the output register leaves
// the process, as a non-blocking assignment, so readers never race it.
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
  // One activation lane: its value (int8 in the low byte), the weight buffer
  // it computes with, and its data type.
  typedef struct packed {
    logic        bf16;
    logic        sel;
    logic [15:0] value;
  } act_t;

  // skew[r][s]: stage s of row r's input delay line (stages 0 .. r-1 used).
  act_t        skew  [ROWS][ROWS];
  // act[r][c]: the activation register feeding PE (r, c) (for c = 0 the
  // last stage of the delay line, for c > 0 the register of PE (r, c-1)).
  act_t        act   [ROWS][COLS];
  // psum[r][c]: PE (r, c)'s partial-sum register, read by the PE below.
  logic [31:0] psum  [ROWS][COLS];
  // w0/w1[r][c]: PE (r, c)'s two weight buffers.
  logic [15:0] w0    [ROWS][COLS];
  logic [15:0] w1    [ROWS][COLS];
  // deskew[c][s]: stage s of column c's output delay line (COLS-1-c stages).
  logic [31:0] deskew[COLS][COLS];

  // The activation entering row r's delay line this edge. Invalid cycles feed
  // zeros in int8 mode, so the PEs add nothing.
  function automatic act_t entry(input int r);
    return '{bf16: in_valid && in_bf16, sel: in_sel, value: in_valid ? in_data[r*16 +: 16] : 16'd0};
  endfunction

  // What PE (r, 0) takes this edge: the end of row r's delay line.
  function automatic act_t skew_out(input int r);
`ifdef MXCOSIM_MUTANT_SKEW_OFF_BY_ONE
    // Mutant: the last row's activations leave the skew one stage early.
    if (r == ROWS - 1 && r > 0) return r == 1 ? entry(r) : skew[r][r-2];
`endif
    return r == 0 ? entry(r) : skew[r][r-1];
  endfunction

  // The loop counters are not traced, so the simulator keeps them as locals.
  /* verilator tracing_off */
  /* verilator lint_off BLKSEQ */
  always_ff @(posedge clk) begin
    // Output de-skew first: it takes the bottom row's sums from before the edge.
    for (int c = 0; c < COLS - 1; c++) begin
      for (int s = COLS - 2 - c; s > 0; s--) deskew[c][s] = deskew[c][s-1];
      deskew[c][0] = psum[ROWS-1][c];
    end

    for (int r = ROWS - 1; r >= 0; r--) begin
      for (int c = COLS - 1; c >= 0; c--) begin
        psum[r][c] = mxu_fp_pkg::pe_mac(r == 0 ? 32'd0 : psum[r-1][c], act[r][c].value,
                                        act[r][c].sel ? w1[r][c] : w0[r][c], act[r][c].bf16);
        act[r][c]  = c == 0 ? skew_out(r) : act[r][c-1];
        // The weight chain shifts the buffer being loaded one row down.
        if (w_shift && !w_buf) w0[r][c] = r == 0 ? w_data[c*16 +: 16] : w0[r-1][c];
        if (w_shift && w_buf) w1[r][c] = r == 0 ? w_data[c*16 +: 16] : w1[r-1][c];
      end
      for (int s = r - 1; s > 0; s--) skew[r][s] = skew[r][s-1];
      if (r > 0) skew[r][0] = entry(r);
    end

    for (int c = 0; c < COLS; c++)
      out_data[c*32 +: 32] <= c == COLS - 1 ? psum[ROWS-1][c] : deskew[c][COLS-2-c];
  end
  /* verilator lint_on BLKSEQ */
  /* verilator tracing_on */
endmodule
