// fp32 -> bf16, round to nearest even (docs/numerics.md): a module around
// mxu_fp_pkg::fp32_to_bf16, for the numerics harness.
module mxu_fp32_to_bf16 (
    input  logic [31:0] x,
    output logic [15:0] y
);
  assign y = mxu_fp_pkg::fp32_to_bf16(x);
endmodule
