#pragma once
// RtlTile: the verilated MXU core behind the Tile seam. It plays the tile's
// sequencer and DMA on the C++ side: fetches each instruction's operands
// through the MemoryTarget, drives the core's weight, activation and
// read-out ports cycle by cycle, and writes results back to memory.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bridge/rtl_core_port.h"
#include "models/core/memory_target.h"
#include "models/mxu/tile.h"

namespace mxc {

struct RtlTileConfig {
  std::string name = "tile0";
  std::uint32_t rows = 4, cols = 4;
  double clock_mhz = 1000.0;
  std::uint64_t seed = 1;               ///< Seeds Verilator's random initial state.
  std::uint32_t max_outstanding = 16;   ///< Memory requests in flight at once.
  std::uint32_t source_id = 0;          ///< MemRequest::source of this tile's traffic.
  std::string waveform;                 ///< FST path; empty = no waveform.
};

class RtlTile final : public Tile {
 public:
  RtlTile(const RtlTileConfig& cfg, MemoryTarget& mem);
  ~RtlTile() override;

  std::string name() const override { return m_cfg.name; }
  Time next_event_time() const override;
  void advance_to(Time now) override;

  void load_program(Program program) override;
  bool finished() const override { return m_pc >= m_program.size() && m_phase == Phase::kIdle; }
  std::uint64_t cycles() const override { return m_cycle; }
  const std::vector<InstrEvent>& instr_events() const override { return m_events; }
  const ClockDomain& clock() const override { return m_clock; }
  std::string state() const override;

  std::uint32_t acc_rows() const { return m_core->acc_rows(); }

 private:
  enum class Phase { kIdle, kFetch, kWaitBuffers, kDrive, kReadOut, kWriteBack };

  void begin_instruction(Time now);
  void end_instruction();
  void issue_requests(Time now);
  void drive_cycle();
  void on_response(const MemResponse& resp);
  void check_instruction(const Instr& in) const;

  RtlTileConfig m_cfg;
  MemoryTarget& m_mem;
  ClockDomain m_clock;
  std::unique_ptr<RtlCorePort> m_core;

  Program m_program;
  std::size_t m_pc = 0;
  Phase m_phase = Phase::kIdle;
  std::uint64_t m_cycle = 0;         // edges since the program was loaded
  std::uint64_t m_start_edge = 0;    // clock edge index of cycle 0
  std::vector<InstrEvent> m_events;

  // Per-instruction transfer state: one memory request per matrix row.
  std::vector<MemRequest> m_requests;
  std::size_t m_next_request = 0;
  std::size_t m_outstanding = 0;
  std::size_t m_responses = 0;
  std::vector<std::vector<std::uint8_t>> m_rows;  // fetched or read-out data, by row
  std::uint32_t m_step = 0;                       // drive / read-out cycle counter
  std::uint64_t m_next_id = 0;
};

}  // namespace mxc
