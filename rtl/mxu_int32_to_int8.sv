// int32 -> int8: arithmetic right shift by `shift` rounding to nearest, ties
// to even, then saturation to [-128, 127] (docs/numerics.md).
module mxu_int32_to_int8 (
    input  logic signed [31:0] x,
    input  logic        [4:0]  shift,
    output logic signed [7:0]  y
);
  // One extra low bit: after the shift, bit 0 is the first bit shifted out
  // (the half) and bits 32:1 are floor(x / 2^shift).
  logic signed [32:0] ext, t;
  logic               sticky, round_up;
  logic signed [32:0] q;

  assign ext      = {x, 1'b0};
  assign t        = ext >>> shift;
  assign sticky   = (t <<< shift) != ext;  // anything below the half was lost
  assign round_up = t[0] && (sticky || t[1]);
  assign q        = {t[32], t[32:1]} + {32'd0, round_up};

  always_comb begin
    if (q > 33'sd127) y = 8'sd127;
    else if (q < -33'sd128) y = -8'sd128;
    else y = q[7:0];
  end
endmodule
