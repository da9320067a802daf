// DMA engine of the MXU tile: moves rows between HBM (AXI4 master, INCR
// bursts) and the scratchpad. One descriptor at a time; within it, up to
// MAX_OUTSTANDING bursts in flight, each with its own AXI ID. The cycle-level
// behaviour (latencies, issue rates, when desc_done pulses) is specified in
// docs/dma.md; keep the two in step.
//
// Structure:
//   ag   burst walker for the address channel (AR for loads, AW for stores);
//        a burst leaves it into the AR/AW output register when an ID is free.
//   R    each beat is looked up by RID in a per-ID context (scratchpad row,
//        next bank), pushed into a 2-entry FIFO, and written to the
//        scratchpad from its head.
//   W    a second walker (wg) replays the same burst order for the data: a
//        burst's scratchpad reads start once its AW is in the output register;
//        each read's data (one cycle later) enters a 3-entry FIFO whose head is
//        the W channel. Reads are issued only when the FIFO has room for
//        everything already requested, so WREADY low never loses a beat.
//   B    a response frees its ID.
// A descriptor that would need an illegal or meaningless AXI burst (an
// address or stride not a multiple of the beat, a row of 0 bytes) is refused:
// it sets `error`, issues nothing and completes like an empty one.
module mxu_dma #(
    parameter int DATA_W  = 256,
    parameter int ADDR_W  = 48,
    parameter int ID_W    = 4,
    parameter int MAX_OUTSTANDING = 16,
    parameter int SP_ROWS  = 1024,
    parameter int SP_BANKS = 1,
    localparam int SP_AW = $clog2(SP_ROWS), localparam int BANK_W = (SP_BANKS > 1) ? $clog2(SP_BANKS) : 1
) (
    input  logic clk, rst_n,
    input  logic desc_valid, output logic desc_ready,
    input  logic desc_store,
    input  logic [ADDR_W-1:0] desc_addr,
    input  logic [31:0] desc_stride,
    input  logic [15:0] desc_rows,
    input  logic [15:0] desc_row_bytes,
    input  logic [SP_AW-1:0] desc_sp_row,
    output logic desc_done,
    output logic busy,
    output logic stall_mem,
    output logic error,
    output logic sp_wr_valid, input logic sp_wr_ready,
    output logic [SP_AW-1:0] sp_wr_row, output logic [BANK_W-1:0] sp_wr_bank,
    output logic [DATA_W-1:0] sp_wr_data, output logic [DATA_W/8-1:0] sp_wr_strb,
    output logic sp_rd_en, output logic [SP_AW-1:0] sp_rd_row, output logic [BANK_W-1:0] sp_rd_bank,
    input  logic [DATA_W-1:0] sp_rd_data,
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
    input  logic m_axi_bvalid, output logic m_axi_bready, input logic [ID_W-1:0] m_axi_bid, input logic [1:0] m_axi_bresp
);
  localparam int BEAT_BYTES = DATA_W / 8;
  localparam int SH = $clog2(BEAT_BYTES);
  localparam int NID = MAX_OUTSTANDING;
  localparam int NSLOT = 1 << ID_W;  // per-ID state covers every encodable ID
  localparam int AHEAD_W = $clog2(NID + 2);
  localparam int BEAT_MASK = BEAT_BYTES - 1;  // address bits below the beat

  // AxSIZE's 3 bits name beats of 1 to 128 bytes (AXI4, ARM IHI 0022): a wider beat's size
  // would be truncated into a wrong one.
  if (DATA_W < 8 || (1 << SH) != BEAT_BYTES || BEAT_BYTES > 128) begin : g_bad_data_w
    $error("mxu_dma: DATA_W must be 8 * a power of two, at most 1024 (AXI4 beats of at most 128 bytes)");
  end
  if (NID < 1 || NID > (1 << ID_W)) begin : g_bad_outstanding
    $error("mxu_dma: MAX_OUTSTANDING must be in 1..2**ID_W");
  end

  // ---------------------------------------------------------------- descriptor
  logic             store_q;
  logic [BANK_W-1:0] last_bank_q;           // bank of the last beat of a row
  logic [BEAT_BYTES-1:0] last_strb_q;        // byte enables of that beat
  logic [16:0]      row_beats;
  logic [BEAT_BYTES-1:0] last_strb;
  logic             desc_fire, desc_bad, desc_go, done_cond;

  assign desc_ready = !busy;
  assign desc_fire  = desc_valid && desc_ready;
  // Outside the preconditions of docs/dma.md and not safe to put on the bus:
  // an unaligned INCR burst (legal AXI4, but its first beat is narrower and
  // the rows' bytes would not land where the scratchpad expects them) or a
  // row of no beats. Software checks refuse these; the hardware does too,
  // with the error flag, rather than emit something the slave cannot serve.
  assign desc_bad   = desc_row_bytes == 16'd0 || (desc_addr & ADDR_W'(BEAT_MASK)) != '0 ||
                      (desc_stride & 32'(BEAT_MASK)) != '0;
  assign desc_go    = desc_fire && !desc_bad;
  assign row_beats  = (17'(desc_row_bytes) + 17'(BEAT_BYTES - 1)) >> SH;

  logic [15:0] last_byte;  // index of the row's last byte within its beat
  assign last_byte = (desc_row_bytes - 16'd1) & 16'(BEAT_BYTES - 1);
  always_comb begin
    for (int i = 0; i < BEAT_BYTES; i++) last_strb[i] = 16'(i) <= last_byte;
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      busy <= 1'b0;
    end else if (desc_fire) begin
      busy <= 1'b1;
    end else if (done_cond) begin
      busy <= 1'b0;
    end
  end
  always_ff @(posedge clk) begin
    if (desc_fire) begin
      store_q     <= desc_store;
      last_bank_q <= BANK_W'(row_beats - 17'd1);
      last_strb_q <= last_strb;
    end
  end

  // ------------------------------------------------------- address channel
  logic              ag_valid, ag_next;
  logic [ADDR_W-1:0] ag_addr;
  logic [7:0]        ag_len;
  logic [SP_AW-1:0]  ag_sp_row;
  logic [BANK_W-1:0] ag_bank;

  mxu_dma_bursts #(.ADDR_W(ADDR_W), .SP_AW(SP_AW), .BANK_W(BANK_W), .BEAT_BYTES(BEAT_BYTES)) ag (
      .clk(clk), .rst_n(rst_n), .start(desc_go), .addr(desc_addr), .stride(desc_stride), .rows(desc_rows),
      .row_beats(row_beats), .sp_row(desc_sp_row), .next(ag_next), .valid(ag_valid), .b_addr(ag_addr),
      .b_len(ag_len), .b_sp_row(ag_sp_row), .b_bank(ag_bank));

  // IDs: a set bit is a burst issued and not completed (last R beat, or B).
  // Only IDs below NID are ever allocated.
  logic [NSLOT-1:0] id_busy;
  logic            id_avail;
  logic [ID_W-1:0] free_id;
  always_comb begin
    id_avail = 1'b0;
    free_id  = '0;
    for (int i = NID - 1; i >= 0; i--) begin
      if (!id_busy[i]) begin
        id_avail = 1'b1;
        free_id  = ID_W'(i);
      end
    end
  end

  // The AR/AW output register, shared: only one direction per descriptor.
  logic              ax_valid;
  logic [ID_W-1:0]   ax_id;
  logic [ADDR_W-1:0] ax_addr;
  logic [7:0]        ax_len;
  logic              ax_ready, ax_fire, ax_load;

  assign ax_ready = store_q ? m_axi_awready : m_axi_arready;
  assign ax_fire  = ax_valid && ax_ready;
`ifdef MXCOSIM_MUTANT_AR_BACKPRESSURE_IGNORED
  // Mutant: the next burst is loaded even while the current one is stalled
  // (ARVALID/AWVALID high, READY low): the address changes under VALID.
  assign ax_load  = busy && ag_valid && id_avail;
`elsif MXCOSIM_MUTANT_DMA_ISSUE_BUBBLE
  // Mutant: a burst is loaded only into an empty register, one idle cycle
  // between back-to-back addresses.
  assign ax_load  = busy && ag_valid && id_avail && !ax_valid;
`else
  assign ax_load  = busy && ag_valid && id_avail && (!ax_valid || ax_fire);
`endif
  assign ag_next  = ax_load;

  always_ff @(posedge clk) begin
`ifdef MXCOSIM_MUTANT_VALID_IN_RESET
    // Mutant: the address channel's valid is set, not cleared, by reset.
    if (!rst_n) ax_valid <= 1'b1;
`else
    if (!rst_n) ax_valid <= 1'b0;
`endif
    else if (ax_load) ax_valid <= 1'b1;
    else if (ax_fire) ax_valid <= 1'b0;
  end
  always_ff @(posedge clk) begin
    if (ax_load) begin
      ax_id   <= free_id;
      ax_addr <= ag_addr;
      ax_len  <= ag_len;
    end
  end

  assign m_axi_arvalid = ax_valid && !store_q;
  assign m_axi_awvalid = ax_valid && store_q;
  assign m_axi_arid    = ax_id;
  assign m_axi_awid    = ax_id;
`ifdef MXCOSIM_MUTANT_AR_ADDR_UNALIGNED
  // Mutant: the read address keeps a byte offset inside the beat.
  assign m_axi_araddr  = ax_addr | ADDR_W'(1);
`else
  assign m_axi_araddr  = ax_addr;
`endif
`ifdef MXCOSIM_MUTANT_AW_ADDR_UNALIGNED
  // Mutant: the write address keeps a byte offset inside the beat.
  assign m_axi_awaddr  = ax_addr | ADDR_W'(1);
`else
  assign m_axi_awaddr  = ax_addr;
`endif
  assign m_axi_arlen   = ax_len;
  assign m_axi_awlen   = ax_len;
  assign m_axi_arsize  = 3'(SH);
  assign m_axi_awsize  = 3'(SH);
  assign m_axi_arburst = 2'b01;
  assign m_axi_awburst = 2'b01;

  // ------------------------------------------------------------ read data
  // Per-ID context of the burst in flight under that ID.
  logic [SP_AW-1:0]  ctx_row [NSLOT];
  logic [BANK_W-1:0] ctx_bank[NSLOT];

  logic r_fire, r_known, b_fire, b_known;
  logic [BANK_W-1:0] r_bank;
  logic [SP_AW-1:0]  r_row;
  assign r_fire  = m_axi_rvalid && m_axi_rready;
  assign r_known = id_busy[m_axi_rid] && !store_q;  // stray beats are dropped
  assign r_bank  = ctx_bank[m_axi_rid];
  assign r_row   = ctx_row[m_axi_rid];
  assign b_fire  = m_axi_bvalid && m_axi_bready;
  assign b_known = store_q;

  always_ff @(posedge clk) begin
    if (ax_load && !store_q) begin
      ctx_row[free_id]  <= ag_sp_row;
      ctx_bank[free_id] <= ag_bank;
    end
    if (r_fire && r_known) ctx_bank[m_axi_rid] <= r_bank + 1'b1;
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      id_busy <= '0;
    end else begin
      if (ax_load) id_busy[free_id] <= 1'b1;
      if (r_fire && r_known && m_axi_rlast) id_busy[m_axi_rid] <= 1'b0;
      if (b_fire && b_known) id_busy[m_axi_bid] <= 1'b0;
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n) error <= 1'b0;
    else if ((r_fire && m_axi_rresp != 2'b00) || (b_fire && m_axi_bresp != 2'b00) || (desc_fire && desc_bad))
      error <= 1'b1;
  end

  // R beats -> scratchpad, through a 2-entry FIFO so RREADY is a register.
  localparam int RF_W = SP_AW + BANK_W + BEAT_BYTES + DATA_W;
  logic [RF_W-1:0] rf_head;
  logic [1:0]      rf_count;
  logic            rf_empty, rf_full;
  logic [BEAT_BYTES-1:0] r_strb;
  assign r_strb = (r_bank == last_bank_q) ? last_strb_q : '1;

  logic r_push;
`ifdef MXCOSIM_MUTANT_R_BEAT_LOST
  // Mutant: the last R beat of the first read burst after reset is taken
  // from the bus but never reaches the scratchpad.
  logic r_lost_q;
  always_ff @(posedge clk) begin
    if (!rst_n) r_lost_q <= 1'b0;
    else if (r_fire && r_known && m_axi_rlast) r_lost_q <= 1'b1;
  end
  assign r_push = r_fire && r_known && (r_lost_q || !m_axi_rlast);
`else
  assign r_push = r_fire && r_known;
`endif

  mxu_fifo #(.W(RF_W), .DEPTH(2)) rfifo (
      .clk(clk), .rst_n(rst_n), .push(r_push), .push_data({r_row, r_bank, r_strb, m_axi_rdata}),
      .pop(sp_wr_valid && sp_wr_ready), .head(rf_head), .empty(rf_empty), .full(rf_full), .count(rf_count));

  assign m_axi_rready = !rf_full;
  assign sp_wr_valid  = !rf_empty;
  logic unused_rf_count;
  assign unused_rf_count = ^rf_count;
  assign {sp_wr_row, sp_wr_bank, sp_wr_strb, sp_wr_data} = rf_head;

  // ----------------------------------------------------------- write data
  logic              wg_valid, w_take;
  logic [7:0]        wg_len;
  logic [SP_AW-1:0]  wg_sp_row;
  logic [BANK_W-1:0] wg_bank;
  logic [ADDR_W-1:0] wg_addr_unused;

  mxu_dma_bursts #(.ADDR_W(ADDR_W), .SP_AW(SP_AW), .BANK_W(BANK_W), .BEAT_BYTES(BEAT_BYTES)) wg (
      .clk(clk), .rst_n(rst_n), .start(desc_go && desc_store), .addr(desc_addr), .stride(desc_stride),
      .rows(desc_rows), .row_beats(row_beats), .sp_row(desc_sp_row), .next(w_take), .valid(wg_valid),
      .b_addr(wg_addr_unused), .b_len(wg_len), .b_sp_row(wg_sp_row), .b_bank(wg_bank));

  // AW bursts in the output register or issued whose data has not started.
  logic [AHEAD_W-1:0] aw_ahead;
  logic               wb_active, w_issue, rd_pend, rd_last_q;
  logic [SP_AW-1:0]   wb_row;
  logic [BANK_W-1:0]  wb_bank;
  logic [8:0]         wb_left;  // beats of the current burst not yet read
  logic [BEAT_BYTES-1:0] rd_strb_q;
  logic [1:0]         wf_count;
  logic               wf_empty, wf_full;
  logic [1 + BEAT_BYTES + DATA_W - 1:0] wf_head;

  // Room in the FIFO for the read in flight and this one, whatever WREADY does.
  assign w_issue = wb_active && (32'(wf_count) + 32'(rd_pend)) <= 2;
  assign w_take  = store_q && wg_valid && aw_ahead != '0 && (!wb_active || (w_issue && wb_left == 9'd1));

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      aw_ahead  <= '0;
      wb_active <= 1'b0;
      rd_pend   <= 1'b0;
    end else begin
      aw_ahead <= aw_ahead + AHEAD_W'(ax_load && store_q) - AHEAD_W'(w_take);
      rd_pend  <= w_issue;
      if (w_take) wb_active <= 1'b1;
      else if (w_issue && wb_left == 9'd1) wb_active <= 1'b0;
    end
  end
  always_ff @(posedge clk) begin
    if (w_take) begin
      wb_row  <= wg_sp_row;
      wb_bank <= wg_bank;
      wb_left <= 9'(wg_len) + 9'd1;
    end else if (w_issue) begin
      wb_bank <= wb_bank + 1'b1;
      wb_left <= wb_left - 9'd1;
    end
    if (w_issue) begin
`ifdef MXCOSIM_MUTANT_WLAST_MISSING
      // Mutant: WLAST never marks a burst's last beat.
      rd_last_q <= 1'b0;
`else
      rd_last_q <= wb_left == 9'd1;
`endif
`ifdef MXCOSIM_MUTANT_WSTRB_SHORT
      // Mutant: the last beat's byte enables stop one byte short.
      rd_strb_q <= (wb_bank == last_bank_q) ? (last_strb_q >> 1) : '1;
`else
      rd_strb_q <= (wb_bank == last_bank_q) ? last_strb_q : '1;
`endif
    end
  end

  assign sp_rd_en   = w_issue;
  assign sp_rd_row  = wb_row;
  assign sp_rd_bank = wb_bank;

  // The head is presented straight from storage registers, so WVALID and
  // the beat never depend combinationally on WREADY.
  mxu_fifo #(.W(1 + BEAT_BYTES + DATA_W), .DEPTH(3)) wfifo (
      .clk(clk), .rst_n(rst_n), .push(rd_pend), .push_data({rd_last_q, rd_strb_q, sp_rd_data}),
      .pop(m_axi_wvalid && m_axi_wready), .head(wf_head), .empty(wf_empty), .full(wf_full), .count(wf_count));
  logic unused_wf_full;
  assign unused_wf_full = wf_full;  // w_issue keeps room by the count

`ifdef MXCOSIM_MUTANT_W_VALID_WITHDRAWN
  // Mutant: WVALID drops while a scratchpad read is in flight, even when a
  // beat was offered and not yet accepted.
  assign m_axi_wvalid = !wf_empty && !rd_pend;
`else
  assign m_axi_wvalid = !wf_empty;
`endif
  assign {m_axi_wlast, m_axi_wstrb, m_axi_wdata} = wf_head;
  assign m_axi_bready = 1'b1;

  // ------------------------------------------------------------ completion
  logic addr_done, w_done, wait_b;
  assign addr_done = !ag_valid && !ax_valid;
  assign w_done    = !wg_valid && !wb_active && !rd_pend && wf_empty && aw_ahead == '0;
  assign wait_b    = addr_done && w_done && id_busy != '0;
  assign done_cond = busy && addr_done && id_busy == '0 && (store_q ? w_done : rf_empty);
  assign desc_done = done_cond;

  assign stall_mem = busy && ((ax_valid && !ax_ready) || (m_axi_wvalid && !m_axi_wready) ||
                              (!store_q && id_busy != '0 && m_axi_rready && !m_axi_rvalid) ||
                              (store_q && wait_b));
endmodule
