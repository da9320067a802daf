// Dispatcher: takes instructions from the command port in program order and
// hands each to its unit's queue once its wait fields allow it.
//
// An instruction waits in the head register until, for each unit X, the
// number of X instructions dispatched and not yet completed is at most its
// WAIT_X field (15 = do not wait), and its unit's queue has room. FENCE waits
// for every count to be zero and for the array to drain (a MATMUL completes
// when its last vector enters the array; its results reach the accumulators
// ROWS + COLS cycles later). NOP and FENCE complete when dispatched.
// Throughput: one instruction per cycle; an instruction accepted at edge t
// dispatches at edge t+1 at the earliest.
module mxu_dispatch
  import mxu_isa_pkg::*;
(
    input  logic               clk,
    input  logic               rst_n,
    input  logic               cmd_valid,
    output logic               cmd_ready,
    input  logic [INSTR_W-1:0] cmd_data,
    // unit queues: 0 dma, 1 compute, 2 ici
    output logic [2:0]         q_push,
    output logic [INSTR_W-1:0] q_data,
    input  logic [2:0]         q_full,
    // completion pulses from the units
    input  logic [2:0]         unit_done,
    input  logic               array_busy,        // vectors in the array not yet written back
    output logic [3:0]         outstanding[3],
    // events for monitors and counters
    output logic               ev_dispatch,       // an instruction left the head this cycle's edge
    output logic [1:0]         ev_unit,           // 0 dma, 1 compute, 2 ici, 3 none
    output logic               stall,             // head valid but not dispatched
    output logic               pending,           // an instruction waits in the head register
    output logic               error              // sticky: unknown opcode received
);
  logic               head_valid;
  logic [INSTR_W-1:0] head;

  logic [3:0] opcode;
  assign opcode = head[F_OPCODE_LSB +: F_OPCODE_W];

  logic [1:0] unit;
  logic       known;
  always_comb begin
    known = 1'b1;
    unique case (opcode)
      OP_DMA_LOAD, OP_DMA_STORE:             unit = 2'd0;
      OP_LOAD_WEIGHTS, OP_MATMUL, OP_OUTPUT: unit = 2'd1;
      OP_ICI_SEND, OP_ICI_WAIT:              unit = 2'd2;
      OP_NOP, OP_FENCE:                      unit = 2'd3;
      default: begin
        unit  = 2'd3;
        known = 1'b0;
      end
    endcase
  end

  logic [3:0] wait_lim[3];
  always_comb begin
    wait_lim[0] = head[F_WAIT_DMA_LSB +: F_WAIT_DMA_W];
    wait_lim[1] = head[F_WAIT_COMPUTE_LSB +: F_WAIT_COMPUTE_W];
    wait_lim[2] = head[F_WAIT_ICI_LSB +: F_WAIT_ICI_W];
    if (opcode == OP_FENCE) begin
      wait_lim[0] = '0;
      wait_lim[1] = '0;
      wait_lim[2] = '0;
    end
  end

  logic waits_met, room, fire;
  always_comb begin
    waits_met = 1'b1;
    for (int u = 0; u < 3; u++)
`ifdef MXCOSIM_MUTANT_DISPATCH_WAIT_IGNORED
      // Mutant: the WAIT_DMA field is ignored (FENCE still waits).
      if ((u != 0 || opcode == OP_FENCE) && wait_lim[u] != WAIT_NONE && outstanding[u] > wait_lim[u])
        waits_met = 1'b0;
`else
      if (wait_lim[u] != WAIT_NONE && outstanding[u] > wait_lim[u]) waits_met = 1'b0;
`endif
    if (opcode == OP_FENCE && array_busy) waits_met = 1'b0;
  end
  assign room      = (unit == 2'd3) || !q_full[unit];
  assign fire      = head_valid && waits_met && room;
  assign cmd_ready = !head_valid || fire;
  assign stall     = head_valid && !fire;
  assign pending   = head_valid;

  always_ff @(posedge clk) begin
    if (!rst_n) head_valid <= 1'b0;
    else if (cmd_ready) head_valid <= cmd_valid;
  end
  always_ff @(posedge clk) begin
    if (cmd_ready && cmd_valid) head <= cmd_data;
  end

  always_comb begin
    q_push = '0;
    if (fire && unit != 2'd3) q_push[unit] = 1'b1;
  end
  assign q_data      = head;
  assign ev_dispatch = fire;
  assign ev_unit     = unit;

  for (genvar u = 0; u < 3; u++) begin : g_count
    always_ff @(posedge clk) begin
      if (!rst_n) outstanding[u] <= '0;
      else outstanding[u] <= outstanding[u] + 4'(q_push[u]) - 4'(unit_done[u]);
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n) error <= 1'b0;
    else if (fire && !known) error <= 1'b1;
  end
endmodule
