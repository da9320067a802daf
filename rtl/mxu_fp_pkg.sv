// The tile's arithmetic as functions (docs/numerics.md): the PE's
// multiply-accumulate, bf16 multiply, fp32 add, the output conversions and
// ReLU. Functions let a caller evaluate them only where they are selected: a
// simulator such as Verilator keeps an if/else around a function call,
// whereas a module instance is evaluated every cycle whatever its output is
// used for. The modules mxu_bf16_mul, mxu_fp32_add, mxu_fp32_to_bf16,
// mxu_int32_to_int8 and mxu_relu wrap these functions for the numerics
// harness, so one description serves both.
package mxu_fp_pkg;

  // One PE's update, psum + a x w: int8 x int8 -> int32 with two's complement
  // wrap (low bytes of a and w), or bf16 x bf16 -> exact fp32 product added in
  // fp32 rounded to nearest even. Only the selected type's arithmetic runs.
  function automatic logic [31:0] pe_mac(input logic [31:0] psum, input logic [15:0] a,
                                         input logic [15:0] w, input logic is_bf16);
`ifndef MXCOSIM_MUTANT_INT8_UNSIGNED_MUL
    logic signed [7:0] a8, w8;
`endif
    if (is_bf16) return fp32_add(psum, bf16_mul(a, w));
`ifdef MXCOSIM_MUTANT_INT8_UNSIGNED_MUL
    // Mutant: int8 operands zero-extended instead of sign-extended.
    return psum + 32'(a[7:0]) * 32'(w[7:0]);
`else
    a8 = a[7:0];
    w8 = w[7:0];
    return psum + 32'(a8 * w8);  // the exact product, sign-extended to 32 bits
`endif
  endfunction

  // bf16 x bf16 -> fp32, the exact product. Two 8-bit significands give a
  // 16-bit product, which fits fp32's 24 bits, so normal results need no
  // rounding. Subnormal inputs read as zero, results below 2^-126 flush to a
  // zero of the product's sign, results of 2^128 or more are infinity, and
  // every NaN result is the canonical 0x7FC00000.
  function automatic logic [31:0] bf16_mul(input logic [15:0] a, input logic [15:0] b);
    logic       sign;
    logic       a_max, b_max, a_zero, b_zero, a_nan, b_nan, a_inf, b_inf;
    logic [15:0] prod;
    logic [9:0] exp_sum;  // biased exponent of the product, before normalising
    logic [9:0] exp_out;
    logic [22:0] frac;


    sign   = a[15] ^ b[15];
    a_max  = a[14:7] == 8'hFF;
    b_max  = b[14:7] == 8'hFF;
    a_zero = a[14:7] == 8'h00;  // zero or subnormal: both read as zero
    b_zero = b[14:7] == 8'h00;
    a_nan  = a_max && (a[6:0] != 7'd0);
    b_nan  = b_max && (b[6:0] != 7'd0);
    a_inf  = a_max && (a[6:0] == 7'd0);
    b_inf  = b_max && (b[6:0] == 7'd0);

    // 1.ma x 1.mb lies in [1, 4): prod[15] says whether it reached 2.
    prod    = {8'd0, 1'b1, a[6:0]} * {8'd0, 1'b1, b[6:0]};
    exp_sum = {2'b00, a[14:7]} + {2'b00, b[14:7]} - 10'd127;
    exp_out = exp_sum + {9'd0, prod[15]};
    frac    = prod[15] ? {prod[14:0], 8'd0} : {prod[13:0], 9'd0};

    // exp_out is a 10-bit two's complement number in [-125, 382].
    if (a_nan || b_nan || (a_inf && b_zero) || (b_inf && a_zero)) return 32'h7FC0_0000;
    else if (a_inf || b_inf) return {sign, 8'hFF, 23'd0};
    else if (a_zero || b_zero || exp_out[9] || exp_out == 10'd0) return {sign, 31'd0};
    else if (exp_out >= 10'd255) return {sign, 8'hFF, 23'd0};
    else return {sign, exp_out[7:0], frac};
  endfunction

  // fp32 + fp32 -> fp32, round to nearest even, subnormals in and out as
  // zero. Datapath: order the operands by magnitude, align the smaller one
  // onto the larger with guard, round and sticky bits (27-bit frame: 24-bit
  // significand and 3 bits below), add or subtract, normalise, round. A sum
  // below 2^-126 is always exact (both operands are multiples of 2^-149), so
  // flushing it after rounding equals flushing it before. Canonical NaN
  // 0x7FC00000.
  function automatic logic [31:0] fp32_add(input logic [31:0] a, input logic [31:0] b);
    logic a_max, b_max, a_nan, b_nan, a_inf, b_inf;
    logic [30:0] mag_a, mag_b;
    logic        swap, sign_l, eff_sub;
    logic [30:0] mag_l, mag_s;
    logic [7:0]  exp_l, dexp;
    logic [4:0]  shamt;
    logic [23:0] sig_l, sig_s;
    logic [31:0] s_frame, s_shifted;
    logic        sticky;
    logic [26:0] s_aligned;
    logic [27:0] sum;
    logic [26:0] n0, n1, n2, n3, n4;
    logic [25:0] n5;  // the leading one (bit 26) is implicit from here on
    logic        z16, z8, z4, z2, z1;
    logic [4:0]  lz;
    logic        round_up;
    logic [9:0]  exp_n;     // two's complement, may be <= 0 before the flush
    logic [32:0] rounded;   // {exponent (10 bits), mantissa (23 bits)}
`ifdef MXCOSIM_MUTANT_FP32_ROUND_TRUNCATE
    logic unused_mut;
`endif

    // ---- classify; zero and subnormal both read as a magnitude of zero ----
    a_max = a[30:23] == 8'hFF;
    b_max = b[30:23] == 8'hFF;
    a_nan = a_max && (a[22:0] != 23'd0);
    b_nan = b_max && (b[22:0] != 23'd0);
    a_inf = a_max && (a[22:0] == 23'd0);
    b_inf = b_max && (b[22:0] == 23'd0);
    mag_a = (a[30:23] == 8'h00) ? 31'd0 : a[30:0];
    mag_b = (b[30:23] == 8'h00) ? 31'd0 : b[30:0];

    // ---- L is the larger magnitude, S the smaller ----
    swap    = mag_b > mag_a;
    mag_l   = swap ? mag_b : mag_a;
    mag_s   = swap ? mag_a : mag_b;
    sign_l  = swap ? b[31] : a[31];
    eff_sub = a[31] ^ b[31];
    exp_l   = mag_l[30:23];
    dexp    = mag_l[30:23] - mag_s[30:23];
    // Beyond 26 places S is only sticky; 31 keeps that true in a 5-bit amount.
    shamt   = (dexp > 8'd31) ? 5'd31 : dexp[4:0];
    sig_l   = {(mag_l != 31'd0), mag_l[22:0]};
    sig_s   = {(mag_s != 31'd0), mag_s[22:0]};

    // ---- align S: 27-bit frame, bits lost to the right fold into bit 0 ----
    s_frame   = {5'd0, sig_s, 3'd0};
    s_shifted = s_frame >> shamt;
    sticky    = (s_shifted << shamt) != s_frame;
    s_aligned = s_shifted[26:0] | {26'd0, sticky};

    // ---- add or subtract; bit 27 is the carry ----
    sum = eff_sub ? {1'b0, sig_l, 3'd0} - {1'b0, s_aligned}
                  : {1'b0, sig_l, 3'd0} + {1'b0, s_aligned};

    // ---- normalise so the leading one sits at bit 26 ----
    // A carry shifts right by one (keeping the lost bit as sticky); otherwise a
    // five-stage shifter finds the leading one. Shifts of 2 or more happen only
    // for exact results (operands within one binade), so no bits are lost.

    n0  = sum[27] ? {sum[27:2], sum[1] | sum[0]} : sum[26:0];
    z16 = n0[26:11] == 16'd0;
    n1  = z16 ? {n0[10:0], 16'd0} : n0;
    z8  = n1[26:19] == 8'd0;
    n2  = z8 ? {n1[18:0], 8'd0} : n1;
    z4  = n2[26:23] == 4'd0;
    n3  = z4 ? {n2[22:0], 4'd0} : n2;
    z2  = n3[26:25] == 2'd0;
    n4  = z2 ? {n3[24:0], 2'd0} : n3;
    z1  = !n4[26];
    n5  = z1 ? {n4[24:0], 1'b0} : n4[25:0];
    lz  = {z16, z8, z4, z2, z1};

    // ---- round to nearest even; a mantissa carry moves into the exponent ----
`ifdef MXCOSIM_MUTANT_FP32_ROUND_TRUNCATE
    // Mutant: rounds toward zero (drops guard, round and sticky bits).
    unused_mut = ^n5[2:0];
    round_up = 1'b0;
`else
    round_up = n5[2] && (n5[1] || n5[0] || n5[3]);
`endif
    exp_n    = {2'b00, exp_l} + {9'd0, sum[27]} - {5'd0, lz};
    rounded  = {exp_n, n5[25:3]} + {32'd0, round_up};

    if (a_nan || b_nan || (a_inf && b_inf && eff_sub)) return 32'h7FC0_0000;
    else if (a_inf) return a;
    else if (b_inf) return b;
    else if (sum == 28'd0) return {a[31] & b[31], 31'd0};  // exact zero: +0 unless -0 + -0
    else if (rounded[32] || rounded[32:23] == 10'd0) return {sign_l, 31'd0};  // below 2^-126
    else if (rounded[32:23] >= 10'd255) return {sign_l, 8'hFF, 23'd0};
    else return {sign_l, rounded[30:0]};
  endfunction

  // fp32 -> bf16, round to nearest even. Both formats share the 8-bit
  // exponent, so rounding the upper half is enough: a carry out of the
  // mantissa increments the exponent, and from the largest finite value it
  // lands on infinity's encoding. Subnormal inputs read as zero; a normal
  // input never rounds below bf16's smallest normal. NaN -> 0x7FC0.
  function automatic logic [15:0] fp32_to_bf16(input logic [31:0] x);
    logic is_max, is_zero, round_up;
    is_max   = x[30:23] == 8'hFF;
    is_zero  = x[30:23] == 8'h00;
    // Round up above the halfway point, or at it when the kept part is odd.
    round_up = x[15] && ((x[14:0] != 15'd0) || x[16]);
    if (is_max && (x[22:0] != 23'd0)) return 16'h7FC0;
    else if (is_max) return {x[31], 15'h7F80};
    else if (is_zero) return {x[31], 15'd0};
    else return x[31:16] + {15'd0, round_up};
  endfunction

  // int32 -> int8: arithmetic right shift by `shift` rounding to nearest,
  // ties to even, then saturation to [-128, 127].
  function automatic logic [7:0] int32_to_int8(input logic [31:0] x, input logic [4:0] shift);
    // One extra low bit: after the shift, bit 0 is the first bit shifted out
    // (the half) and bits 32:1 are floor(x / 2^shift).
    logic signed [32:0] ext, t, q;
    logic               sticky, round_up;
    ext      = {x, 1'b0};
    t        = ext >>> shift;
    sticky   = (t <<< shift) != ext;  // anything below the half was lost
    round_up = t[0] && (sticky || t[1]);
    q        = {t[32], t[32:1]} + {32'd0, round_up};
    if (q > 33'sd127) return 8'h7F;
    else if (q < -33'sd128) return 8'h80;
    else return q[7:0];
  endfunction

  // ReLU on an fp32 or an int32 word. fp32: negatives, -0 and subnormals ->
  // +0; any NaN -> canonical 0x7FC00000; +inf and positive normals pass.
  // int32: negatives -> 0.
  function automatic logic [31:0] relu(input logic [31:0] x, input logic is_float);
    logic is_nan, is_subnormal;
    is_nan       = (x[30:23] == 8'hFF) && (x[22:0] != 23'd0);
    is_subnormal = x[30:23] == 8'h00;
    if (is_float && is_nan) return 32'h7FC0_0000;
    else if (x[31] || (is_float && is_subnormal)) return 32'd0;
    else return x;
  endfunction

endpackage
