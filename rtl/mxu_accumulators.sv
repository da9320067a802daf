// Accumulator memory: ACC_ROWS rows of COLS int32. A write either overwrites
// a row or adds to it element-wise (two's complement wrap). One registered
// read port for draining results.
module mxu_accumulators #(
    parameter int COLS     = 4,
    parameter int ACC_ROWS = 256,
    localparam int AW      = $clog2(ACC_ROWS)
) (
    input  logic               clk,
    input  logic               wr_en,
    input  logic [AW-1:0]      wr_addr,
    input  logic               wr_accumulate,
    input  logic [COLS*32-1:0] wr_data,
    input  logic               rd_en,
    input  logic [AW-1:0]      rd_addr,
    output logic               rd_valid,
    output logic [COLS*32-1:0] rd_data
);
  logic [COLS*32-1:0] mem[ACC_ROWS];
  logic [COLS*32-1:0] merged;

  always_comb begin
    for (int c = 0; c < COLS; c++) begin
      merged[c*32 +: 32] = wr_accumulate ? mem[wr_addr][c*32 +: 32] + wr_data[c*32 +: 32]
                                         : wr_data[c*32 +: 32];
    end
  end

  always_ff @(posedge clk) begin
    if (wr_en) mem[wr_addr] <= merged;
  end

  always_ff @(posedge clk) begin
    rd_valid <= rd_en;
    if (rd_en) rd_data <= mem[rd_addr];
  end
endmodule
