// Accumulator memory: ACC_ROWS rows of COLS 32-bit values (int32 or fp32).
//
// Two write paths, each a read-modify-write finished in the cycle it is taken:
//   write-back from the array (always taken): overwrite the row, or add to it
//     element-wise (int32 wrap, or fp32 add rounded to nearest even);
//   ici accumulate (taken when no write-back this cycle): add the enabled
//     elements of an inbound row (int32 or fp32), leave the others.
// One registered read port: rd_data holds the row after the edge sampling rd_en.
module mxu_accumulators #(
    parameter int COLS     = 4,
    parameter int ACC_ROWS = 256,
    localparam int AW      = $clog2(ACC_ROWS)
) (
    input  logic               clk,
    input  logic               wb_en,
    input  logic [AW-1:0]      wb_addr,
    input  logic               wb_accumulate,
    input  logic               wb_bf16,
    input  logic [COLS*32-1:0] wb_data,
    input  logic               ia_valid,
    output logic               ia_ready,
    input  logic [AW-1:0]      ia_addr,
    input  logic               ia_bf16,
    input  logic [COLS-1:0]    ia_elem_en,
    input  logic [COLS*32-1:0] ia_data,
    input  logic               rd_en,
    input  logic [AW-1:0]      rd_addr,
    output logic [COLS*32-1:0] rd_data
);
  logic [COLS*32-1:0] mem[ACC_ROWS];

  assign ia_ready = !wb_en;

  // One adder row serves both write paths: they never run in the same cycle.
  logic               use_ia;
  logic [AW-1:0]      addr;
  logic               is_bf16;
  logic [COLS*32-1:0] addend, old_row, sum_row, merged;
  assign use_ia  = !wb_en && ia_valid;
  assign addr    = use_ia ? ia_addr : wb_addr;
  assign is_bf16 = use_ia ? ia_bf16 : wb_bf16;
  assign addend  = use_ia ? ia_data : wb_data;
  assign old_row = mem[addr];

  for (genvar c = 0; c < COLS; c++) begin : g_col
    logic [31:0] fp_sum, int_sum;
    mxu_fp32_add add (.a(old_row[c*32 +: 32]), .b(addend[c*32 +: 32]), .y(fp_sum));
    assign int_sum = old_row[c*32 +: 32] + addend[c*32 +: 32];
    assign sum_row[c*32 +: 32] = is_bf16 ? fp_sum : int_sum;
    always_comb begin
      if (use_ia) merged[c*32 +: 32] = ia_elem_en[c] ? sum_row[c*32 +: 32] : old_row[c*32 +: 32];
`ifdef MXCOSIM_MUTANT_DROPPED_ACCUMULATE
      // Mutant: the write-back always overwrites; accumulate is ignored.
      else merged[c*32 +: 32] = wb_data[c*32 +: 32];
`else
      else merged[c*32 +: 32] = wb_accumulate ? sum_row[c*32 +: 32] : wb_data[c*32 +: 32];
`endif
    end
  end

`ifdef MXCOSIM_MUTANT_DROPPED_ACCUMULATE
  logic unused_mut;
  assign unused_mut = wb_accumulate;
`endif

  always_ff @(posedge clk) begin
    if (wb_en || ia_valid) mem[addr] <= merged;
  end

  always_ff @(posedge clk) begin
    if (rd_en) rd_data <= mem[rd_addr];
  end
endmodule
