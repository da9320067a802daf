// One processing element of the weight-stationary systolic array.
//
// Holds two int8 weights (double buffer). Each cycle it forwards the
// activation (and its buffer select) to the right and adds
// activation * weight[sel] to the partial sum coming from above, passing the
// result down. Loading shifts a weight from above into the buffer `w_buf`
// while the other buffer keeps computing.
module mxu_pe (
    input  logic               clk,
    // activation from the left, with the weight buffer it must use
    input  logic signed [7:0]  a_in,
    input  logic               sel_in,
    output logic signed [7:0]  a_out,
    output logic               sel_out,
    // partial sum from above, result to below
    input  logic signed [31:0] psum_in,
    output logic signed [31:0] psum_out,
    // weight shift chain (top to bottom)
    input  logic               w_shift,
    input  logic               w_buf,
    input  logic signed [7:0]  w_in,
    output logic signed [7:0]  w_out
);
  logic signed [7:0] w0, w1;

  always_ff @(posedge clk) begin
    if (w_shift && !w_buf) w0 <= w_in;
    if (w_shift && w_buf) w1 <= w_in;
  end

  // Weight chain output comes from the buffer being loaded.
  assign w_out = w_buf ? w1 : w0;

  logic signed [7:0]  w_sel;
  logic signed [15:0] product;
  assign w_sel   = sel_in ? w1 : w0;
  assign product = 16'(a_in) * 16'(w_sel);

  always_ff @(posedge clk) begin
    a_out    <= a_in;
    sel_out  <= sel_in;
    psum_out <= psum_in + 32'(product);  // int32 two's complement wrap
  end
endmodule
