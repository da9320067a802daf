// fp32 -> bf16, round to nearest even (docs/numerics.md).
//
// Both formats share the 8-bit exponent, so rounding the upper half is enough:
// a carry out of the mantissa increments the exponent, and from the largest
// finite value it lands on infinity's encoding. Subnormal inputs read as zero;
// a normal input never rounds below bf16's smallest normal. NaN -> 0x7FC0.
module mxu_fp32_to_bf16 (
    input  logic [31:0] x,
    output logic [15:0] y
);
  logic is_max, is_zero, round_up;

  assign is_max   = x[30:23] == 8'hFF;
  assign is_zero  = x[30:23] == 8'h00;
  // Round up above the halfway point, or at it when the kept part is odd.
  assign round_up = x[15] && ((x[14:0] != 15'd0) || x[16]);

  always_comb begin
    if (is_max && (x[22:0] != 23'd0)) y = 16'h7FC0;
    else if (is_max) y = {x[31], 15'h7F80};
    else if (is_zero) y = {x[31], 15'd0};
    else y = x[31:16] + {15'd0, round_up};
  end
endmodule
