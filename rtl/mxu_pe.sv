// One processing element of the weight-stationary systolic array.
//
// Holds two 16-bit weights (double buffer). Each cycle it forwards the
// activation, its weight-buffer select and its data type to the right, and
// passes psum_in + activation * weight[sel] down:
//   int8: int8 x int8 -> int32, two's complement wrap (low bytes of a and w);
//   bf16: bf16 x bf16 -> exact fp32 product, fp32 add rounded to nearest even
//         (docs/numerics.md).
// Loading shifts a weight from above into buffer w_buf while the other
// buffer keeps computing.
module mxu_pe (
    input  logic        clk,
    // activation from the left, with its weight buffer and data type
    input  logic [15:0] a_in,
    input  logic        sel_in,
    input  logic        bf16_in,
    output logic [15:0] a_out,
    output logic        sel_out,
    output logic        bf16_out,
    // partial sum from above, result to below
    input  logic [31:0] psum_in,
    output logic [31:0] psum_out,
    // weight shift chain (top to bottom)
    input  logic        w_shift,
    input  logic        w_buf,
    input  logic [15:0] w_in,
    output logic [15:0] w_out
);
  logic [15:0] w0, w1;

  always_ff @(posedge clk) begin
    if (w_shift && !w_buf) w0 <= w_in;
    if (w_shift && w_buf) w1 <= w_in;
  end

  // The weight chain passes on the buffer being loaded.
  assign w_out = w_buf ? w1 : w0;

  logic [15:0] w_sel;
  assign w_sel = sel_in ? w1 : w0;

  // Only the selected data type's arithmetic is evaluated: the bf16 path is
  // a function call inside the if, which a simulator (Verilator included)
  // skips in int8 cycles, where an always-present instance would not be.
  logic signed [15:0] int_product;
`ifdef MXCOSIM_MUTANT_INT8_UNSIGNED_MUL
  // Mutant: int8 operands zero-extended instead of sign-extended.
  assign int_product = 16'(a_in[7:0]) * 16'(w_sel[7:0]);
`else
  assign int_product = 16'(signed'(a_in[7:0])) * 16'(signed'(w_sel[7:0]));
`endif

  always_ff @(posedge clk) begin
    a_out    <= a_in;
    sel_out  <= sel_in;
    bf16_out <= bf16_in;
    if (bf16_in) psum_out <= mxu_fp_pkg::fp32_add(psum_in, mxu_fp_pkg::bf16_mul(a_in, w_sel));
    else psum_out <= psum_in + 32'(int_product);
  end
endmodule
