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
  // Kept out of waveforms, as every large memory (rows are visible at the
  // read port and the write path).
  /* verilator tracing_off */
  logic [COLS*32-1:0] mem[ACC_ROWS];
  /* verilator tracing_on */

  assign ia_ready = !wb_en;

  // One adder row serves both write paths: they never run in the same cycle.
  // The sums are formed only in a cycle that writes, and only in the row's
  // data type (the fp32 adder is a function call under the if).
  logic               use_ia;
  logic [AW-1:0]      addr;
  logic [COLS*32-1:0] old_row, merged;
  assign use_ia  = !wb_en && ia_valid;
  assign addr    = use_ia ? ia_addr : wb_addr;
  assign old_row = mem[addr];

  function automatic logic [31:0] add(input logic [31:0] a, input logic [31:0] b, input logic is_bf16);
    if (is_bf16) return mxu_fp_pkg::fp32_add(a, b);
    return a + b;
  endfunction

  always_comb begin
    merged = old_row;
    for (int c = 0; c < COLS; c++) begin
      if (use_ia) begin
        if (ia_elem_en[c]) merged[c*32 +: 32] = add(old_row[c*32 +: 32], ia_data[c*32 +: 32], ia_bf16);
`ifdef MXCOSIM_MUTANT_DROPPED_ACCUMULATE
      // Mutant: the write-back always overwrites; accumulate is ignored.
      end else if (wb_en) begin
        merged[c*32 +: 32] = wb_data[c*32 +: 32];
`else
      end else if (wb_en) begin
        if (wb_accumulate) merged[c*32 +: 32] = add(old_row[c*32 +: 32], wb_data[c*32 +: 32], wb_bf16);
        else merged[c*32 +: 32] = wb_data[c*32 +: 32];
`endif
      end
    end
  end

`ifdef MXCOSIM_MUTANT_DROPPED_ACCUMULATE
  logic unused_mut;
  assign unused_mut = wb_accumulate ^ wb_bf16;
`endif

  always_ff @(posedge clk) begin
    if (wb_en || ia_valid) mem[addr] <= merged;
  end

  always_ff @(posedge clk) begin
    if (rd_en) rd_data <= mem[rd_addr];
  end
endmodule
