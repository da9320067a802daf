// fp32 + fp32 -> fp32, round to nearest even, subnormals in and out as zero
// (docs/numerics.md).
//
// Datapath: order the operands by magnitude, align the smaller one onto the
// larger with guard, round and sticky bits (27-bit frame: 24-bit significand
// and 3 bits below), add or subtract, normalise, round. A sum below 2^-126 is
// always exact (both operands are multiples of 2^-149), so flushing it after
// rounding equals flushing it before. Canonical NaN 0x7FC00000.
module mxu_fp32_add (
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic [31:0] y
);
  // ---- classify; zero and subnormal both read as a magnitude of zero ----
  logic a_max, b_max, a_nan, b_nan, a_inf, b_inf;
  logic [30:0] mag_a, mag_b;

  assign a_max = a[30:23] == 8'hFF;
  assign b_max = b[30:23] == 8'hFF;
  assign a_nan = a_max && (a[22:0] != 23'd0);
  assign b_nan = b_max && (b[22:0] != 23'd0);
  assign a_inf = a_max && (a[22:0] == 23'd0);
  assign b_inf = b_max && (b[22:0] == 23'd0);
  assign mag_a = (a[30:23] == 8'h00) ? 31'd0 : a[30:0];
  assign mag_b = (b[30:23] == 8'h00) ? 31'd0 : b[30:0];

  // ---- L is the larger magnitude, S the smaller ----
  logic        swap, sign_l, eff_sub;
  logic [30:0] mag_l, mag_s;
  logic [7:0]  exp_l, dexp;
  logic [4:0]  shamt;
  logic [23:0] sig_l, sig_s;

  assign swap    = mag_b > mag_a;
  assign mag_l   = swap ? mag_b : mag_a;
  assign mag_s   = swap ? mag_a : mag_b;
  assign sign_l  = swap ? b[31] : a[31];
  assign eff_sub = a[31] ^ b[31];
  assign exp_l   = mag_l[30:23];
  assign dexp    = mag_l[30:23] - mag_s[30:23];
  // Beyond 26 places S is only sticky; 31 keeps that true in a 5-bit amount.
  assign shamt   = (dexp > 8'd31) ? 5'd31 : dexp[4:0];
  assign sig_l   = {(mag_l != 31'd0), mag_l[22:0]};
  assign sig_s   = {(mag_s != 31'd0), mag_s[22:0]};

  // ---- align S: 27-bit frame, bits lost to the right fold into bit 0 ----
  logic [31:0] s_frame, s_shifted;
  logic        sticky;
  logic [26:0] s_aligned;

  assign s_frame   = {5'd0, sig_s, 3'd0};
  assign s_shifted = s_frame >> shamt;
  assign sticky    = (s_shifted << shamt) != s_frame;
  assign s_aligned = s_shifted[26:0] | {26'd0, sticky};

  // ---- add or subtract; bit 27 is the carry ----
  logic [27:0] sum;

  assign sum = eff_sub ? {1'b0, sig_l, 3'd0} - {1'b0, s_aligned}
                       : {1'b0, sig_l, 3'd0} + {1'b0, s_aligned};

  // ---- normalise so the leading one sits at bit 26 ----
  // A carry shifts right by one (keeping the lost bit as sticky); otherwise a
  // five-stage shifter finds the leading one. Shifts of 2 or more happen only
  // for exact results (operands within one binade), so no bits are lost.
  logic [26:0] n0, n1, n2, n3, n4;
  logic [25:0] n5;  // the leading one (bit 26) is implicit from here on
  logic        z16, z8, z4, z2, z1;
  logic [4:0]  lz;

  assign n0  = sum[27] ? {sum[27:2], sum[1] | sum[0]} : sum[26:0];
  assign z16 = n0[26:11] == 16'd0;
  assign n1  = z16 ? {n0[10:0], 16'd0} : n0;
  assign z8  = n1[26:19] == 8'd0;
  assign n2  = z8 ? {n1[18:0], 8'd0} : n1;
  assign z4  = n2[26:23] == 4'd0;
  assign n3  = z4 ? {n2[22:0], 4'd0} : n2;
  assign z2  = n3[26:25] == 2'd0;
  assign n4  = z2 ? {n3[24:0], 2'd0} : n3;
  assign z1  = !n4[26];
  assign n5  = z1 ? {n4[24:0], 1'b0} : n4[25:0];
  assign lz  = {z16, z8, z4, z2, z1};

  // ---- round to nearest even; a mantissa carry moves into the exponent ----
  logic        round_up;
  logic [9:0]  exp_n;     // two's complement, may be <= 0 before the flush
  logic [32:0] rounded;   // {exponent (10 bits), mantissa (23 bits)}

`ifdef MXCOSIM_MUTANT_FP32_ROUND_TRUNCATE
  // Mutant: rounds toward zero (drops guard, round and sticky bits).
  logic unused_mut;
  assign unused_mut = ^n5[2:0];
  assign round_up = 1'b0;
`else
  assign round_up = n5[2] && (n5[1] || n5[0] || n5[3]);
`endif
  assign exp_n    = {2'b00, exp_l} + {9'd0, sum[27]} - {5'd0, lz};
  assign rounded  = {exp_n, n5[25:3]} + {32'd0, round_up};

  always_comb begin
    if (a_nan || b_nan || (a_inf && b_inf && eff_sub)) y = 32'h7FC0_0000;
    else if (a_inf) y = a;
    else if (b_inf) y = b;
    else if (sum == 28'd0) y = {a[31] & b[31], 31'd0};  // exact zero: +0 unless -0 + -0
    else if (rounded[32] || rounded[32:23] == 10'd0) y = {sign_l, 31'd0};  // below 2^-126
    else if (rounded[32:23] >= 10'd255) y = {sign_l, 8'hFF, 23'd0};
    else y = {sign_l, rounded[30:0]};
  end
endmodule
