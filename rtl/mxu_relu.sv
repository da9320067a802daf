// ReLU on an fp32 or an int32 word (docs/numerics.md).
//
// fp32: negatives, -0 and subnormals -> +0; any NaN -> canonical 0x7FC00000;
// +inf and positive normals pass. int32: negatives -> 0.
module mxu_relu (
    input  logic [31:0] x,
    input  logic        is_float,
    output logic [31:0] y
);
  logic is_nan, is_subnormal;

  assign is_nan       = (x[30:23] == 8'hFF) && (x[22:0] != 23'd0);
  assign is_subnormal = x[30:23] == 8'h00;

  always_comb begin
    if (is_float && is_nan) y = 32'h7FC0_0000;
    else if (x[31] || (is_float && is_subnormal)) y = 32'd0;
    else y = x;
  end
endmodule
