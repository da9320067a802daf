// Scratchpad: SP_ROWS rows of SP_BANKS * BEAT_BYTES bytes, stored as SP_BANKS
// banks; bank b holds bytes [b*BEAT_BYTES, (b+1)*BEAT_BYTES) of every row.
//
// Reads (all synchronous, data the cycle after the request, always granted):
//   compute: a whole row (weights, activations)
//   ici:     a whole row (outbound sends)
//   dma:     one bank of a row (stores to HBM)
// Writes: one per cycle, with byte strobes, by fixed priority
//   compute (whole row, OUTPUT results) > ici (whole row, inbound) > dma (one bank).
// A write and a read of the same row in one cycle read the old data.
module mxu_scratchpad #(
    parameter int SP_ROWS    = 1024,
    parameter int SP_BANKS   = 1,
    parameter int BEAT_BYTES = 32,
    localparam int ROW_BYTES = SP_BANKS * BEAT_BYTES,
    localparam int AW        = $clog2(SP_ROWS),
    localparam int BW        = (SP_BANKS > 1) ? $clog2(SP_BANKS) : 1
) (
    input  logic                   clk,
    // compute read
    input  logic                   c_rd_en,
    input  logic [AW-1:0]          c_rd_row,
    output logic [ROW_BYTES*8-1:0] c_rd_data,
    // ici read
    input  logic                   i_rd_en,
    input  logic [AW-1:0]          i_rd_row,
    output logic [ROW_BYTES*8-1:0] i_rd_data,
    // dma read
    input  logic                   d_rd_en,
    input  logic [AW-1:0]          d_rd_row,
    input  logic [BW-1:0]          d_rd_bank,
    output logic [BEAT_BYTES*8-1:0] d_rd_data,
    // compute write (always granted)
    input  logic                   c_wr_en,
    input  logic [AW-1:0]          c_wr_row,
    input  logic [ROW_BYTES*8-1:0] c_wr_data,
    input  logic [ROW_BYTES-1:0]   c_wr_strb,
    // ici write
    input  logic                   i_wr_valid,
    output logic                   i_wr_ready,
    input  logic [AW-1:0]          i_wr_row,
    input  logic [ROW_BYTES*8-1:0] i_wr_data,
    input  logic [ROW_BYTES-1:0]   i_wr_strb,
    // dma write
    input  logic                   d_wr_valid,
    output logic                   d_wr_ready,
    input  logic [AW-1:0]          d_wr_row,
    input  logic [BW-1:0]          d_wr_bank,
    input  logic [BEAT_BYTES*8-1:0] d_wr_data,
    input  logic [BEAT_BYTES-1:0]  d_wr_strb
);
  assign i_wr_ready = !c_wr_en;
  assign d_wr_ready = !c_wr_en && !i_wr_valid;

  // The selected write, as a whole-row write with strobes.
  logic                   wr_en;
  logic [AW-1:0]          wr_row;
  logic [ROW_BYTES*8-1:0] wr_data;
  logic [ROW_BYTES-1:0]   wr_strb;
  always_comb begin
    wr_en   = 1'b0;
    wr_row  = c_wr_row;
    wr_data = c_wr_data;
    wr_strb = c_wr_strb;
    if (c_wr_en) begin
      wr_en = 1'b1;
    end else if (i_wr_valid) begin
      wr_en   = 1'b1;
      wr_row  = i_wr_row;
      wr_data = i_wr_data;
      wr_strb = i_wr_strb;
    end else if (d_wr_valid) begin
      wr_en   = 1'b1;
      wr_row  = d_wr_row;
      wr_data = {SP_BANKS{d_wr_data}};
      wr_strb = '0;
      for (int b = 0; b < SP_BANKS; b++)
        if (BW'(b) == d_wr_bank) wr_strb[b*BEAT_BYTES +: BEAT_BYTES] = d_wr_strb;
    end
  end

  logic [BEAT_BYTES*8-1:0] d_rd_banks[SP_BANKS];

  for (genvar b = 0; b < SP_BANKS; b++) begin : g_bank
    // Kept out of waveforms, as every large memory: its contents are the
    // memory image the data scoreboard checks, and tracing them would cost
    // more than the rest of the tile.
    /* verilator tracing_off */
    logic [BEAT_BYTES*8-1:0] mem[SP_ROWS];
    /* verilator tracing_on */
    logic [BEAT_BYTES*8-1:0] bit_mask;
    logic [BEAT_BYTES-1:0]   strb;
    assign strb = wr_strb[b*BEAT_BYTES +: BEAT_BYTES];
    always_comb begin
      for (int i = 0; i < BEAT_BYTES; i++) bit_mask[i*8 +: 8] = {8{strb[i]}};
    end
    always_ff @(posedge clk) begin
      if (wr_en && strb != '0)
        mem[wr_row] <= (mem[wr_row] & ~bit_mask) | (wr_data[b*BEAT_BYTES*8 +: BEAT_BYTES*8] & bit_mask);
    end
    always_ff @(posedge clk) begin
      if (c_rd_en) c_rd_data[b*BEAT_BYTES*8 +: BEAT_BYTES*8] <= mem[c_rd_row];
      if (i_rd_en) i_rd_data[b*BEAT_BYTES*8 +: BEAT_BYTES*8] <= mem[i_rd_row];
    end
    assign d_rd_banks[b] = mem[d_rd_row];
  end

  always_ff @(posedge clk) begin
    if (d_rd_en) d_rd_data <= d_rd_banks[d_rd_bank];
  end
endmodule
