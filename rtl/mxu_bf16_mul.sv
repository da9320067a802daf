// bf16 x bf16 -> fp32, the exact product (docs/numerics.md): a module around
// mxu_fp_pkg::bf16_mul, for the numerics harness.
module mxu_bf16_mul (
    input  logic [15:0] a,
    input  logic [15:0] b,
    output logic [31:0] y
);
  assign y = mxu_fp_pkg::bf16_mul(a, b);
endmodule
