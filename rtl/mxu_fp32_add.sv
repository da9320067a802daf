// fp32 + fp32 -> fp32, round to nearest even, subnormals in and out as zero
// (docs/numerics.md): a module around mxu_fp_pkg::fp32_add, for the numerics
// harness.
module mxu_fp32_add (
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic [31:0] y
);
  assign y = mxu_fp_pkg::fp32_add(a, b);
endmodule
