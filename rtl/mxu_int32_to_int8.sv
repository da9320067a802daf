// int32 -> int8 with shift, rounding and saturation (docs/numerics.md): a
// module around mxu_fp_pkg::int32_to_int8, for the numerics harness.
module mxu_int32_to_int8 (
    input  logic [31:0] x,
    input  logic [4:0]  shift,
    output logic [7:0]  y
);
  assign y = mxu_fp_pkg::int32_to_int8(x, shift);
endmodule
