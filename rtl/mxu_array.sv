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
// each PE's update the package function mxu_fp_pkg::pe_mac. Only that
// process reads and writes the arrays; it updates them in place in reverse
// order (bottom row first, activations from the right end), so every PE
// reads its neighbours' values from before the edge, exactly as flip-flops
// do. A simulator then runs one
// loop instead of ROWS x COLS module instances: Verilator keeps loops of more
// than 64 iterations as loops, which keeps a 128x128 array's generated code,
// build time and memory small (docs/rtl.md). Only the output register leaves
// the process, as a non-blocking assignment, so readers never race it.
module mxu_array #(
    parameter int ROWS = 4,
    parameter int COLS = 4
) (
    input  logic                   clk,
    input  logic                   rst_n,
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

  // Delay lines (input skew, output de-skew) are rings with one write per
  // edge at a rotating position, read a fixed distance behind it: the same
  // delays as shift registers, at one write and one read per line per edge.
  localparam int RPW = ROWS > 1 ? $clog2(ROWS) : 1;
  localparam int CPW = COLS > 1 ? $clog2(COLS) : 1;

  // skew[r][i]: row r's input delay line; PE (r, 0) takes the activation that
  // entered r edges ago.
  act_t           skew  [ROWS][ROWS];
  logic [RPW-1:0] skew_at;
  // act[r][c]: the activation register feeding PE (r, c) (for c = 0 the
  // end of the delay line, for c > 0 the register of PE (r, c-1)).
  act_t           act   [ROWS][COLS];
  // psum[r][c]: PE (r, c)'s partial-sum register, read by the PE below.
  logic [31:0]    psum  [ROWS][COLS];
  // w0/w1[r][c]: PE (r, c)'s two weight buffers.
  logic [15:0]    w0    [ROWS][COLS];
  logic [15:0]    w1    [ROWS][COLS];
  // deskew[c][i]: column c's output delay line (COLS - 1 - c edges).
  logic [31:0]    deskew[COLS][COLS];
  logic [CPW-1:0] deskew_at;

  // The activation entering row r's delay line this edge. Invalid cycles feed
  // zeros in int8 mode, so the PEs add nothing.
  function automatic act_t entry(input int r);
    return '{bf16: in_valid && in_bf16, sel: in_sel, value: in_valid ? in_data[r*16 +: 16] : 16'd0};
  endfunction

  // The ring position `back` writes before position `at`, in a ring of n.
  function automatic int ring_back(input int at, input int back, input int n);
    return at >= back ? at - back : at + n - back;
  endfunction

  // How many edges row r's activations wait before PE (r, 0).
  function automatic int skew_delay(input int r);
`ifdef MXCOSIM_MUTANT_SKEW_OFF_BY_ONE
    // Mutant: the last row's activations leave the skew one stage early.
    if (r == ROWS - 1 && r > 0) return r - 1;
`endif
    return r;
  endfunction

  // The loop counters are not traced, so the simulator keeps them as locals.
  /* verilator tracing_off */
  /* verilator lint_off BLKSEQ */
  always_ff @(posedge clk) begin
    // Output de-skew first: it takes the bottom row's sums from before the edge.
    for (int c = 0; c < COLS - 1; c++) deskew[c][deskew_at] = psum[ROWS-1][c];

    // Every PE adds its product to the sum from above: rows bottom-up, so each
    // row reads the one above from before the edge.
    for (int r = ROWS - 1; r > 0; r--)
      for (int c = 0; c < COLS; c++)
        psum[r][c] = mxu_fp_pkg::pe_mac(psum[r-1][c], act[r][c].value,
                                        act[r][c].sel ? w1[r][c] : w0[r][c], act[r][c].bf16);
    for (int c = 0; c < COLS; c++)  // row 0 starts from int 0 / fp32 +0.0
      psum[0][c] = mxu_fp_pkg::pe_mac(32'd0, act[0][c].value, act[0][c].sel ? w1[0][c] : w0[0][c],
                                      act[0][c].bf16);

    // Activations move one PE right; each delay line takes the entering
    // activation and hands PE (r, 0) the one that entered skew_delay(r) ago.
    for (int r = 0; r < ROWS; r++) begin
      for (int c = COLS - 1; c > 0; c--) act[r][c] = act[r][c-1];
      skew[r][skew_at] = entry(r);
      act[r][0] = skew[r][ring_back(int'(skew_at), skew_delay(r), ROWS)];
    end

    // The weight chain shifts the buffer being loaded one row down.
    if (w_shift && !w_buf) begin
      for (int r = ROWS - 1; r > 0; r--) w0[r] = w0[r-1];
      for (int c = 0; c < COLS; c++) w0[0][c] = w_data[c*16 +: 16];
    end
    if (w_shift && w_buf) begin
      for (int r = ROWS - 1; r > 0; r--) w1[r] = w1[r-1];
      for (int c = 0; c < COLS; c++) w1[0][c] = w_data[c*16 +: 16];
    end

    // Column c's sum, written into its delay line COLS - 2 - c edges ago (the
    // last column's straight from the bottom PE).
    for (int c = 0; c < COLS - 1; c++)
      out_data[c*32 +: 32] <= deskew[c][ring_back(int'(deskew_at), COLS - 2 - c, COLS)];
    out_data[(COLS-1)*32 +: 32] <= psum[ROWS-1][COLS-1];

    // Rings advance from 0 after reset (unreset, a 4-state simulator's X
    // position would never write a delay line, and every output would be X).
    if (!rst_n) begin
      skew_at   = '0;
      deskew_at = '0;
    end else begin
      skew_at   = int'(skew_at) >= ROWS - 1 ? '0 : skew_at + 1'b1;
      deskew_at = int'(deskew_at) >= COLS - 1 ? '0 : deskew_at + 1'b1;
    end
  end
  /* verilator lint_on BLKSEQ */
  /* verilator tracing_on */
endmodule
