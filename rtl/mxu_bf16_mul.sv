// bf16 x bf16 -> fp32, the exact product (docs/numerics.md).
//
// Two 8-bit significands give a 16-bit product, which fits fp32's 24 bits, so
// normal results need no rounding. Subnormal inputs read as zero, results
// below 2^-126 flush to a zero of the product's sign, results of 2^128 or more
// are infinity, and every NaN result is the canonical 0x7FC00000.
module mxu_bf16_mul (
    input  logic [15:0] a,
    input  logic [15:0] b,
    output logic [31:0] y
);
  logic       sign;
  logic       a_max, b_max, a_zero, b_zero, a_nan, b_nan, a_inf, b_inf;
  logic [15:0] prod;
  logic [9:0] exp_sum;  // biased exponent of the product, before normalising
  logic [9:0] exp_out;
  logic [22:0] frac;

  assign sign   = a[15] ^ b[15];
  assign a_max  = a[14:7] == 8'hFF;
  assign b_max  = b[14:7] == 8'hFF;
  assign a_zero = a[14:7] == 8'h00;  // zero or subnormal: both read as zero
  assign b_zero = b[14:7] == 8'h00;
  assign a_nan  = a_max && (a[6:0] != 7'd0);
  assign b_nan  = b_max && (b[6:0] != 7'd0);
  assign a_inf  = a_max && (a[6:0] == 7'd0);
  assign b_inf  = b_max && (b[6:0] == 7'd0);

  // 1.ma x 1.mb lies in [1, 4): prod[15] says whether it reached 2.
  assign prod    = {8'd0, 1'b1, a[6:0]} * {8'd0, 1'b1, b[6:0]};
  assign exp_sum = {2'b00, a[14:7]} + {2'b00, b[14:7]} - 10'd127;
  assign exp_out = exp_sum + {9'd0, prod[15]};
  assign frac    = prod[15] ? {prod[14:0], 8'd0} : {prod[13:0], 9'd0};

  // exp_out is a 10-bit two's complement number in [-125, 382].
  always_comb begin
    if (a_nan || b_nan || (a_inf && b_zero) || (b_inf && a_zero)) y = 32'h7FC0_0000;
    else if (a_inf || b_inf) y = {sign, 8'hFF, 23'd0};
    else if (a_zero || b_zero || exp_out[9] || exp_out == 10'd0) y = {sign, 31'd0};
    else if (exp_out >= 10'd255) y = {sign, 8'hFF, 23'd0};
    else y = {sign, exp_out[7:0], frac};
  end
endmodule
