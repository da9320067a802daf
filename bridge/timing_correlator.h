#pragma once
// Timing correlator: compares when things happened on the RTL tile with when
// the performance model says they happen. Per instruction: start (dispatch)
// and end (done) cycles. Per memory channel (source, read/write): the number
// of requests and the n-th request's issue cycle, address, size and byte
// mask. Expected = model, actual = RTL. The statistics feed the correlation
// report.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bridge/checker.h"
#include "bridge/memory_monitor.h"
#include "models/core/clock_domain.h"
#include "models/mxu/instr.h"

namespace mxc {

/// A value passes if |actual - expected| <= max(cycles, percent% of expected). Exact by default.
struct TimingTolerance {
  std::uint64_t cycles = 0;
  double percent = 0.0;

  bool within(std::uint64_t expected, std::uint64_t actual) const;
};

/// One instruction's cycles on both sides.
struct InstrTiming {
  std::size_t index = 0;
  Opcode op = Opcode::NOP;
  std::uint64_t rtl_start = 0, rtl_end = 0, model_start = 0, model_end = 0;

  /// RTL minus model duration (end - start): the instruction's own latency error.
  std::int64_t duration_error() const {
    return static_cast<std::int64_t>(rtl_end - rtl_start) - static_cast<std::int64_t>(model_end - model_start);
  }
  /// RTL minus model end cycle: the drift accumulated up to this instruction.
  std::int64_t end_error() const { return static_cast<std::int64_t>(rtl_end) - static_cast<std::int64_t>(model_end); }
};

/// One ICI row a tile sent, as its chip took it from the tile's outbound port.
struct IciSendEntry {
  Time time = 0;            ///< Kernel time of the edge that produced it.
  std::uint32_t dst = 0;    ///< Destination chip.
  std::uint32_t row = 0;    ///< Scratchpad or accumulator row at the destination.
  std::uint32_t bytes = 0;
  bool to_acc = false;      ///< Accumulates into the accumulators (else lands in the scratchpad).
  bool last = false;
};

/// One memory channel's request counts on both sides.
struct MemoryChannelTiming {
  std::uint32_t source = 0;
  bool write = false;
  std::uint64_t rtl_requests = 0, model_requests = 0;
  std::uint64_t max_abs_issue_error = 0;  ///< Over the requests both sides have, in cycles.
};

/// How much of two traffic logs to compare: everything (counts included),
/// or only the entries both sides have (a run cut short by a hang).
enum class TrafficScope { kAll, kCommonPrefix };

class TimingCorrelator : public Checker {
 public:
  explicit TimingCorrelator(TimingTolerance instructions = {}, TimingTolerance memory = {})
      : m_instr_tol(instructions), m_mem_tol(memory) {}

  std::string name() const override { return "timing"; }

  /// Per instruction start and end cycle, RTL against model.
  void compare_instructions(const Program& program, const std::vector<InstrEvent>& rtl,
                            const std::vector<InstrEvent>& model, const ClockDomain& clk);
  /// Per channel (source, read/write): request count, and each request's issue cycle, address,
  /// size and (writes) byte mask.
  void compare_memory(const MemoryLog& rtl, const MemoryLog& model,
                      const ClockDomain& clk, TrafficScope scope = TrafficScope::kAll);

  /// The tile's cycles from reset to finished (its last unit idle, results
  /// written back), within the instruction tolerance: the end of a run that
  /// no instruction's completion marks (a MATMUL's array draining).
  void compare_cycles(std::uint64_t rtl, std::uint64_t model, const ClockDomain& clk, const std::string& where);

  /// One tile's ICI rows, in send order: count, and each row's destination
  /// chip, row, size and send cycle. `where` names the tile's channel
  /// (for example "timing ici chip0.tile1").
  void compare_ici(const std::vector<IciSendEntry>& rtl, const std::vector<IciSendEntry>& model, const ClockDomain& clk,
                   const std::string& where, TrafficScope scope = TrafficScope::kAll);

  /// The earliest mismatch by time (the first reported among equal times).
  const std::optional<Mismatch>& first_divergence() const { return m_first; }

  /// Instructions both sides ran, in program order.
  const std::vector<InstrTiming>& instructions() const { return m_instrs; }
  /// duration_error() -> number of instructions with it.
  std::map<std::int64_t, std::uint64_t> duration_error_histogram() const;
  /// Cycles through the last instruction completion (max end + 1), RTL and model.
  std::uint64_t rtl_cycles() const { return s_rtl_cycles; }
  std::uint64_t model_cycles() const { return s_model_cycles; }
  /// (rtl - model) / model; 0 when the model took no cycles.
  double relative_error() const;
  /// Mean of |duration_error()| over instructions(); 0 when none.
  double mean_abs_duration_error() const;
  /// Memory channels seen on either side, ordered by (source, read before write).
  const std::vector<MemoryChannelTiming>& memory_channels() const { return m_channels; }

 private:
  void note(Mismatch m);
  /// Both logs request by request the same (source, direction, issue time, address, size, byte
  /// mask): records each channel as matching and returns true; otherwise records nothing.
  bool same_traffic(const MemoryLog& rtl, const MemoryLog& model);
  /// One memory channel: its entries on each side, in acceptance order.
  void compare_channel(const std::vector<const MemoryLogEntry*>& rtl, const std::vector<const MemoryLogEntry*>& model,
                       std::uint32_t source, bool write, const ClockDomain& clk, TrafficScope scope);

  TimingTolerance m_instr_tol, m_mem_tol;
  std::optional<Mismatch> m_first;
  std::vector<InstrTiming> m_instrs;
  std::vector<MemoryChannelTiming> m_channels;
  std::uint64_t s_rtl_cycles = 0, s_model_cycles = 0;
};

}  // namespace mxc
