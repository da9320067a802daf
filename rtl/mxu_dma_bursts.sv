// Burst walker of the DMA: turns a descriptor (rows of row_beats beats at
// addr + r*stride) into AXI INCR bursts, one per row, split where a row would
// cross a 4 KiB boundary or exceed 256 beats. `valid` and the burst fields
// describe the current burst from registers; `next` moves to the following
// one at the clock edge. The same walker drives the address channel and, as
// a second instance, the write-data sequencer, so both see one burst order.
//
// Whatever the descriptor, every burst is legal AXI4 and the walk ends: a
// burst has 1 to 256 beats and its bytes stay inside one 4 KiB page, measured
// from its start address rounded down to the beat (where an INCR burst's
// beats fall, AXI4 A3.4.1), so an address that is not a multiple of the beat
// still gets at least one beat before the boundary; rows of 0 beats make no
// burst at all. mxu_dma refuses such descriptors before they get here; the
// walker does not rely on it.
module mxu_dma_bursts #(
    parameter int ADDR_W     = 48,
    parameter int SP_AW      = 10,
    parameter int BANK_W     = 1,
    parameter int BEAT_BYTES = 32
) (
    input  logic              clk,
    input  logic              rst_n,
    input  logic              start,      // load a descriptor (ignored while valid)
    input  logic [ADDR_W-1:0] addr,
    input  logic [31:0]       stride,
    input  logic [15:0]       rows,
    input  logic [16:0]       row_beats,  // beats per row; 0: no burst
    input  logic [SP_AW-1:0]  sp_row,
    input  logic              next,       // current burst consumed
    output logic              valid,      // a burst is available
    output logic [ADDR_W-1:0] b_addr,
    output logic [7:0]        b_len,      // beats - 1
    output logic [SP_AW-1:0]  b_sp_row,
    output logic [BANK_W-1:0] b_bank      // beat index within the row of the first beat
);
  localparam int SH = $clog2(BEAT_BYTES);

  logic [15:0]       rows_left;   // rows not yet fully issued, current included
  logic [ADDR_W-1:0] row_addr;    // start of the current row
  logic [ADDR_W-1:0] cur_addr;    // start of the current burst
  logic [16:0]       beats_left;  // beats of the current row not yet issued
  logic [16:0]       bank;        // beat index of cur_addr within the row
  logic [16:0]       row_beats_q;
  logic [31:0]       stride_q;
  logic [SP_AW-1:0]  sp_row_q;

  // Beats from cur_addr's beat to the next 4 KiB boundary (1..4096/BEAT_BYTES):
  // from the beat-aligned address, so that an unaligned address in the page's
  // last beat still gives one beat, not 0 (which b_len would wrap to 255).
  logic [12:0] to_4k_bytes;
  logic [16:0] to_4k_beats, len_beats;
  always_comb begin
    to_4k_bytes = 13'd4096 - {1'b0, cur_addr[11:0] & ~12'(BEAT_BYTES - 1)};
    to_4k_beats = 17'(to_4k_bytes) >> SH;
    len_beats   = beats_left;
    if (to_4k_beats < len_beats) len_beats = to_4k_beats;
    if (len_beats > 17'd256) len_beats = 17'd256;
  end

  assign valid    = rows_left != 16'd0;
  assign b_addr   = cur_addr;
  assign b_len    = 8'(len_beats - 17'd1);
  assign b_sp_row = sp_row_q;
  assign b_bank   = BANK_W'(bank);

  logic [ADDR_W-1:0] next_row_addr;
  assign next_row_addr = row_addr + ADDR_W'(stride_q);

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      rows_left <= '0;
    end else if (!valid) begin
      if (start) begin
        // A row of 0 beats has no burst to carry it (b_len would wrap to 255).
        rows_left   <= (row_beats == 17'd0) ? 16'd0 : rows;
        row_addr    <= addr;
        cur_addr    <= addr;
        beats_left  <= row_beats;
        bank        <= '0;
        row_beats_q <= row_beats;
        stride_q    <= stride;
        sp_row_q    <= sp_row;
      end
    end else if (next) begin
      if (len_beats == beats_left) begin
        // Row finished: the next burst starts the next row.
        rows_left  <= rows_left - 16'd1;
        row_addr   <= next_row_addr;
        cur_addr   <= next_row_addr;
        beats_left <= row_beats_q;
        bank       <= '0;
        sp_row_q   <= sp_row_q + 1'b1;
      end else begin
        cur_addr   <= cur_addr + (ADDR_W'(len_beats) << SH);
        beats_left <= beats_left - len_beats;
        bank       <= bank + len_beats;
      end
    end
  end
endmodule
