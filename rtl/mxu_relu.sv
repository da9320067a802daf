// ReLU on an fp32 or an int32 word (docs/numerics.md): a module around
// mxu_fp_pkg::relu, for the numerics harness.
module mxu_relu (
    input  logic [31:0] x,
    input  logic        is_float,
    output logic [31:0] y
);
  assign y = mxu_fp_pkg::relu(x, is_float);
endmodule
