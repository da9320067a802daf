// MXU tile: command port, dispatcher, DMA / compute / ICI units, scratchpad,
// and the MXU core (systolic array + accumulators). docs/isa.md describes the
// instructions, docs/rtl.md the microarchitecture and its timing.
//
// Performance counters (perf, 64 bits each, counter i at bits [64i +: 64]):
//   0 cycles since reset        6 stall: DMA blocked by memory
//   1 busy: DMA unit            7 stall: weights (load waits for its buffer)
//   2 busy: compute unit        8 stall: output (waits for the array to drain)
//   3 busy: ICI unit            9 stall: ICI credits (outbound row refused)
//   4 array active (vector in) 10 stall: ICI wait (inbound rows missing)
//   5 stall: dispatch          11 instructions dispatched
module mxu_tile
  import mxu_isa_pkg::*;
#(
    parameter int ROWS            = 4,
    parameter int COLS            = 4,
    parameter int ACC_ROWS        = 256,
    parameter int SP_ROWS         = 1024,
    parameter int DATA_W          = 256,
    parameter int ADDR_W          = 48,
    parameter int ID_W            = 4,
    parameter int MAX_OUTSTANDING = 16,
    localparam int BEAT_BYTES     = DATA_W / 8,
    localparam int MAXDIM         = (ROWS > COLS) ? ROWS : COLS,
    localparam int SP_BANKS       = (4 * MAXDIM + BEAT_BYTES - 1) / BEAT_BYTES,
    localparam int ROW_BYTES      = SP_BANKS * BEAT_BYTES,
    localparam int NPERF          = 12
) (
    input  logic                   clk,
    input  logic                   rst_n,
    // command port
    input  logic                   cmd_valid,
    output logic                   cmd_ready,
    input  logic [INSTR_W-1:0]     cmd_data,
    // AXI4 master toward HBM
    output logic m_axi_arvalid, input logic m_axi_arready, output logic [ID_W-1:0] m_axi_arid,
    output logic [ADDR_W-1:0] m_axi_araddr, output logic [7:0] m_axi_arlen, output logic [2:0] m_axi_arsize,
    output logic [1:0] m_axi_arburst,
    input  logic m_axi_rvalid, output logic m_axi_rready, input logic [ID_W-1:0] m_axi_rid,
    input  logic [DATA_W-1:0] m_axi_rdata, input logic [1:0] m_axi_rresp, input logic m_axi_rlast,
    output logic m_axi_awvalid, input logic m_axi_awready, output logic [ID_W-1:0] m_axi_awid,
    output logic [ADDR_W-1:0] m_axi_awaddr, output logic [7:0] m_axi_awlen, output logic [2:0] m_axi_awsize,
    output logic [1:0] m_axi_awburst,
    output logic m_axi_wvalid, input logic m_axi_wready, output logic [DATA_W-1:0] m_axi_wdata,
    output logic [DATA_W/8-1:0] m_axi_wstrb, output logic m_axi_wlast,
    input  logic m_axi_bvalid, output logic m_axi_bready, input logic [ID_W-1:0] m_axi_bid,
    input  logic [1:0] m_axi_bresp,
    // ICI outbound stream
    output logic                   ici_out_valid,
    input  logic                   ici_out_ready,
    output logic [7:0]             ici_out_dst,
    output logic [15:0]            ici_out_row,
    output logic                   ici_out_to_acc,
    output logic                   ici_out_bf16,
    output logic [15:0]            ici_out_bytes,
    output logic                   ici_out_last,
    output logic [ROW_BYTES*8-1:0] ici_out_data,
    // ICI inbound stream
    input  logic                   ici_in_valid,
    output logic                   ici_in_ready,
    input  logic [15:0]            ici_in_row,
    input  logic                   ici_in_to_acc,
    input  logic                   ici_in_bf16,
    input  logic [15:0]            ici_in_bytes,
    input  logic                   ici_in_last,
    input  logic [ROW_BYTES*8-1:0] ici_in_data,
    // status and monitors
    output logic                   idle,
    output logic                   error,
    output logic                   ev_dispatch,
    output logic [1:0]             ev_unit,
    output logic [2:0]             ev_done,
    output logic [NPERF*64-1:0]    perf
);
  localparam int AW  = $clog2(ACC_ROWS);
  localparam int SAW = $clog2(SP_ROWS);
  localparam int BW  = (SP_BANKS > 1) ? $clog2(SP_BANKS) : 1;
  localparam int CW  = $clog2(ROWS + COLS + 2);

  // Parameters the instruction fields cannot serve. Scratchpad and
  // accumulator rows are named by 16-bit fields (sp_row, acc_row,
  // remote_row): rows past 65536 could never be reached. The DMA's burst
  // walker cuts bursts at 4 KiB, so the address holds at least its 12 bits.
  // An ADDR_W above the 48-bit hbm_addr field is zero-extended from it.
  if (SP_ROWS < 2 || SP_ROWS > (1 << F_SP_ROW_W)) begin : g_bad_sp_rows
    $error("mxu_tile: SP_ROWS must be in 2..65536 (16-bit scratchpad row fields)");
  end
  if (ACC_ROWS < 2 || ACC_ROWS > (1 << F_ACC_ROW_W)) begin : g_bad_acc_rows
    $error("mxu_tile: ACC_ROWS must be in 2..65536 (16-bit accumulator row fields)");
  end
  if (ADDR_W < 12) begin : g_bad_addr_w
    $error("mxu_tile: ADDR_W must be at least 12 (bursts are cut at 4 KiB boundaries)");
  end

  // ---- dispatch and unit queues ----
  logic [2:0]         q_push, q_full, q_empty, q_pop, unit_done;
  logic [INSTR_W-1:0] q_data, q_head[3];
  logic [3:0]         outstanding[3];
  logic               dispatch_stall, dispatch_pending, dispatch_error;
  // Vectors in the array per weight buffer, not yet written back (the core's
  // registered counts): FENCE also waits for them.
  logic [CW-1:0]      inflight0, inflight1;

  mxu_dispatch dispatch (
      .clk        (clk),
      .rst_n      (rst_n),
      .cmd_valid  (cmd_valid),
      .cmd_ready  (cmd_ready),
      .cmd_data   (cmd_data),
      .q_push     (q_push),
      .q_data     (q_data),
      .q_full     (q_full),
      .unit_done  (unit_done),
      .array_busy (inflight0 != '0 || inflight1 != '0),
      .outstanding(outstanding),
      .ev_dispatch(ev_dispatch),
      .ev_unit    (ev_unit),
      .stall      (dispatch_stall),
      .pending    (dispatch_pending),
      .error      (dispatch_error)
  );

  for (genvar u = 0; u < 3; u++) begin : g_queue
    logic [2:0] count;
    mxu_fifo #(.W(INSTR_W), .DEPTH(4)) q (
        .clk      (clk),
        .rst_n    (rst_n),
        .push     (q_push[u]),
        .push_data(q_data),
        .pop      (q_pop[u]),
        .head     (q_head[u]),
        .empty    (q_empty[u]),
        .full     (q_full[u]),
        .count    (count)
    );
    logic unused_count;
    assign unused_count = ^count;
  end

  // ---- scratchpad ----
  logic                   c_rd_en, i_rd_en, d_rd_en, c_wr_en, i_wr_valid, i_wr_ready, d_wr_valid, d_wr_ready;
  logic [SAW-1:0]         c_rd_row, i_rd_row, d_rd_row, c_wr_row, i_wr_row, d_wr_row;
  logic [BW-1:0]          d_rd_bank, d_wr_bank;
  logic [ROW_BYTES*8-1:0] c_rd_data, i_rd_data, c_wr_data, i_wr_data;
  logic [ROW_BYTES-1:0]   c_wr_strb, i_wr_strb;
  logic [DATA_W-1:0]      d_rd_data, d_wr_data;
  logic [DATA_W/8-1:0]    d_wr_strb;

  mxu_scratchpad #(.SP_ROWS(SP_ROWS), .SP_BANKS(SP_BANKS), .BEAT_BYTES(BEAT_BYTES)) scratchpad (
      .clk       (clk),
      .c_rd_en   (c_rd_en),
      .c_rd_row  (c_rd_row),
      .c_rd_data (c_rd_data),
      .i_rd_en   (i_rd_en),
      .i_rd_row  (i_rd_row),
      .i_rd_data (i_rd_data),
      .d_rd_en   (d_rd_en),
      .d_rd_row  (d_rd_row),
      .d_rd_bank (d_rd_bank),
      .d_rd_data (d_rd_data),
      .c_wr_en   (c_wr_en),
      .c_wr_row  (c_wr_row),
      .c_wr_data (c_wr_data),
      .c_wr_strb (c_wr_strb),
      .i_wr_valid(i_wr_valid),
      .i_wr_ready(i_wr_ready),
      .i_wr_row  (i_wr_row),
      .i_wr_data (i_wr_data),
      .i_wr_strb (i_wr_strb),
      .d_wr_valid(d_wr_valid),
      .d_wr_ready(d_wr_ready),
      .d_wr_row  (d_wr_row),
      .d_wr_bank (d_wr_bank),
      .d_wr_data (d_wr_data),
      .d_wr_strb (d_wr_strb)
  );

  // ---- DMA unit ----
  logic dma_desc_ready, dma_busy, dma_stall_mem, dma_error;
  logic [INSTR_W-1:0] dma_instr;
  assign dma_instr = q_head[0];
  logic unused_dma_fields;  // the DMA needs only some fields
  assign unused_dma_fields = ^dma_instr;
  assign q_pop[0]  = !q_empty[0] && dma_desc_ready;

  mxu_dma #(
      .DATA_W(DATA_W), .ADDR_W(ADDR_W), .ID_W(ID_W), .MAX_OUTSTANDING(MAX_OUTSTANDING),
      .SP_ROWS(SP_ROWS), .SP_BANKS(SP_BANKS)
  ) dma (
      .clk           (clk),
      .rst_n         (rst_n),
      .desc_valid    (!q_empty[0]),
      .desc_ready    (dma_desc_ready),
      .desc_store    (dma_instr[F_OPCODE_LSB +: F_OPCODE_W] == OP_DMA_STORE),
      // From the fields' own widths: a wider port is zero-extended, not filled from the next field.
      .desc_addr     (ADDR_W'(dma_instr[F_HBM_ADDR_LSB +: F_HBM_ADDR_W])),
      .desc_stride   (dma_instr[F_HBM_STRIDE_LSB +: F_HBM_STRIDE_W]),
      .desc_rows     (dma_instr[F_ROWS_LSB +: F_ROWS_W]),
      .desc_row_bytes(dma_instr[F_COLS_LSB +: F_COLS_W]),
      .desc_sp_row   (SAW'(dma_instr[F_SP_ROW_LSB +: F_SP_ROW_W])),
      .desc_done     (unit_done[0]),
      .busy          (dma_busy),
      .stall_mem     (dma_stall_mem),
      .error         (dma_error),
      .sp_wr_valid   (d_wr_valid),
      .sp_wr_ready   (d_wr_ready),
      .sp_wr_row     (d_wr_row),
      .sp_wr_bank    (d_wr_bank),
      .sp_wr_data    (d_wr_data),
      .sp_wr_strb    (d_wr_strb),
      .sp_rd_en      (d_rd_en),
      .sp_rd_row     (d_rd_row),
      .sp_rd_bank    (d_rd_bank),
      .sp_rd_data    (d_rd_data),
      .*
  );

  // ---- MXU core and compute unit ----
  logic               w_valid, w_buf, in_valid, in_sel, in_bf16, in_accumulate, acc_rd_en;
  logic [COLS*16-1:0] w_data;
  logic [ROWS*16-1:0] in_data;
  logic [AW-1:0]      in_acc_addr, acc_rd_addr, ia_addr;
  logic [COLS*32-1:0] acc_rd_data, ia_data;
  logic               ia_valid, ia_ready, ia_bf16;
  logic [COLS-1:0]    ia_elem_en;
  logic               compute_busy, stall_weights, stall_drain;

  mxu_core #(.ROWS(ROWS), .COLS(COLS), .ACC_ROWS(ACC_ROWS)) core (
      .clk          (clk),
      .rst_n        (rst_n),
      .w_valid      (w_valid),
      .w_buf        (w_buf),
      .w_data       (w_data),
      .in_valid     (in_valid),
      .in_data      (in_data),
      .in_sel       (in_sel),
      .in_bf16      (in_bf16),
      .in_acc_addr  (in_acc_addr),
      .in_accumulate(in_accumulate),
      .ia_valid     (ia_valid),
      .ia_ready     (ia_ready),
      .ia_addr      (ia_addr),
      .ia_bf16      (ia_bf16),
      .ia_elem_en   (ia_elem_en),
      .ia_data      (ia_data),
      .rd_en        (acc_rd_en),
      .rd_addr      (acc_rd_addr),
      .rd_data      (acc_rd_data),
      .inflight0    (inflight0),
      .inflight1    (inflight1)
  );

  mxu_compute #(
      .ROWS(ROWS), .COLS(COLS), .ACC_ROWS(ACC_ROWS), .SP_ROWS(SP_ROWS), .ROW_BYTES(ROW_BYTES)
  ) compute (
      .clk          (clk),
      .rst_n        (rst_n),
      .q_valid      (!q_empty[1]),
      .q_instr      (q_head[1]),
      .q_pop        (q_pop[1]),
      .done         (unit_done[1]),
      .busy         (compute_busy),
      .stall_weights(stall_weights),
      .stall_drain  (stall_drain),
      .sp_rd_en     (c_rd_en),
      .sp_rd_row    (c_rd_row),
      .sp_rd_data   (c_rd_data),
      .sp_wr_en     (c_wr_en),
      .sp_wr_row    (c_wr_row),
      .sp_wr_data   (c_wr_data),
      .sp_wr_strb   (c_wr_strb),
      .w_valid      (w_valid),
      .w_buf        (w_buf),
      .w_data       (w_data),
      .in_valid     (in_valid),
      .in_data      (in_data),
      .in_sel       (in_sel),
      .in_bf16      (in_bf16),
      .in_acc_addr  (in_acc_addr),
      .in_accumulate(in_accumulate),
      .acc_rd_en    (acc_rd_en),
      .acc_rd_addr  (acc_rd_addr),
      .acc_rd_data  (acc_rd_data),
      .inflight0    (inflight0),
      .inflight1    (inflight1)
  );

  // ---- ICI unit ----
  logic ici_busy, stall_credit, stall_wait;

  mxu_ici #(.COLS(COLS), .ACC_ROWS(ACC_ROWS), .SP_ROWS(SP_ROWS), .ROW_BYTES(ROW_BYTES)) ici (
      .clk         (clk),
      .rst_n       (rst_n),
      .q_valid     (!q_empty[2]),
      .q_instr     (q_head[2]),
      .q_pop       (q_pop[2]),
      .done        (unit_done[2]),
      .busy        (ici_busy),
      .stall_credit(stall_credit),
      .stall_wait  (stall_wait),
      .sp_rd_en    (i_rd_en),
      .sp_rd_row   (i_rd_row),
      .sp_rd_data  (i_rd_data),
      .out_valid   (ici_out_valid),
      .out_ready   (ici_out_ready),
      .out_dst     (ici_out_dst),
      .out_row     (ici_out_row),
      .out_to_acc  (ici_out_to_acc),
      .out_bf16    (ici_out_bf16),
      .out_bytes   (ici_out_bytes),
      .out_last    (ici_out_last),
      .out_data    (ici_out_data),
      .in_valid    (ici_in_valid),
      .in_ready    (ici_in_ready),
      .in_row      (ici_in_row),
      .in_to_acc   (ici_in_to_acc),
      .in_bf16     (ici_in_bf16),
      .in_bytes    (ici_in_bytes),
      .in_last     (ici_in_last),
      .in_data     (ici_in_data),
      .sp_wr_valid (i_wr_valid),
      .sp_wr_ready (i_wr_ready),
      .sp_wr_row   (i_wr_row),
      .sp_wr_data  (i_wr_data),
      .sp_wr_strb  (i_wr_strb),
      .acc_valid   (ia_valid),
      .acc_ready   (ia_ready),
      .acc_addr    (ia_addr),
      .acc_bf16    (ia_bf16),
      .acc_elem_en (ia_elem_en),
      .acc_data    (ia_data)
  );

  // ---- status, events, counters ----
  assign idle = !dispatch_pending && outstanding[0] == '0 && outstanding[1] == '0 && outstanding[2] == '0 &&
                inflight0 == '0 && inflight1 == '0;
  assign error   = dispatch_error || dma_error;
  assign ev_done = unit_done;

  logic [NPERF-1:0] perf_event;
  assign perf_event = {ev_dispatch, stall_wait, stall_credit, stall_drain, stall_weights, dma_stall_mem,
                       dispatch_stall, in_valid, ici_busy, compute_busy, dma_busy, 1'b1};
  for (genvar i = 0; i < NPERF; i++) begin : g_perf
    always_ff @(posedge clk) begin
      if (!rst_n) perf[i*64 +: 64] <= '0;
      else if (perf_event[i]) perf[i*64 +: 64] <= perf[i*64 +: 64] + 64'd1;
    end
  end
endmodule
