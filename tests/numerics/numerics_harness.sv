// Test harness: every numerics module and the PE's multiply-accumulate on its own ports, so one evaluation
// checks them all against the C++ model (tests/numerics/test_numerics_rtl.cpp).
module numerics_harness (
    input  logic [15:0] mul_a,
    input  logic [15:0] mul_b,
    output logic [31:0] mul_y,
    input  logic [31:0] add_a,
    input  logic [31:0] add_b,
    output logic [31:0] add_y,
    input  logic [31:0] cvt_x,
    output logic [15:0] cvt_y,
    input  logic [31:0] i8_x,
    input  logic [4:0]  i8_shift,
    output logic [7:0]  i8_y,
    input  logic [31:0] relu_x,
    input  logic        relu_is_float,
    output logic [31:0] relu_y,
    input  logic [31:0] pe_psum,
    input  logic [15:0] pe_a,
    input  logic [15:0] pe_w,
    input  logic        pe_bf16,
    output logic [31:0] pe_y
);
  mxu_bf16_mul u_mul (.a(mul_a), .b(mul_b), .y(mul_y));
  mxu_fp32_add u_add (.a(add_a), .b(add_b), .y(add_y));
  mxu_fp32_to_bf16 u_cvt (.x(cvt_x), .y(cvt_y));
  mxu_int32_to_int8 u_i8 (.x(i8_x), .shift(i8_shift), .y(i8_y));
  mxu_relu u_relu (.x(relu_x), .is_float(relu_is_float), .y(relu_y));
  // The PE's multiply-accumulate, as every PE of the array computes it.
  assign pe_y = mxu_fp_pkg::pe_mac(pe_psum, pe_a, pe_w, pe_bf16);
endmodule
