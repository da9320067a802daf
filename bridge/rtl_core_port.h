#pragma once
// Pin-level access to one verilated MXU core, independent of its size (each
// size is a different verilated class; see rtl_core_factory.h).
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace mxc {

class RtlCorePort {
 public:
  virtual ~RtlCorePort() = default;

  virtual std::uint32_t rows() const = 0;
  virtual std::uint32_t cols() const = 0;
  virtual std::uint32_t acc_rows() const = 0;
  /// Edges from an activation vector's entry to its accumulator write.
  std::uint32_t pipe_latency() const { return rows() + cols(); }

  // Inputs, held until changed; sampled at the next rising edge.
  virtual void set_reset(bool active) = 0;
  /// One weight row (cols() values) shifted into buffer `buf`.
  virtual void set_weights(bool valid, bool buf, std::span<const std::int8_t> row) = 0;
  /// One activation vector (rows() values).
  virtual void set_input(bool valid, std::span<const std::int8_t> vec, bool sel, std::uint32_t acc_addr,
                         bool accumulate) = 0;
  virtual void set_read(bool enable, std::uint32_t acc_addr) = 0;

  /// One full clock cycle: rising edge, evaluate, falling edge, evaluate.
  virtual void cycle() = 0;

  // Outputs after the last rising edge.
  virtual bool read_valid() const = 0;
  /// cols() int32 values.
  virtual void read_data(std::span<std::int32_t> out) const = 0;
  virtual std::uint32_t inflight(int buf) const = 0;

  /// Start dumping an FST waveform (every later cycle).
  virtual void open_trace(const std::string& path) = 0;
  virtual void close_trace() = 0;
};

}  // namespace mxc
