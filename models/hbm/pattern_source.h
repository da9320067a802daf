#pragma once
// Generated request streams: sequential, random, strided, pointer chase and
// read/write mix, deterministic for a given seed (std::mt19937_64 raw bits).
#include <cstdint>
#include <random>
#include <string>

#include "models/hbm/request_source.h"

namespace mxc::hbm {

struct PatternOptions {
  std::string pattern = "seq";     ///< seq | random | stride | chase | mix
  std::uint64_t requests = 1000;
  std::uint32_t bytes = 64;        ///< Request size.
  std::uint64_t stride = 4096;     ///< For "stride".
  std::uint64_t footprint = std::uint64_t{1} << 30;  ///< Addresses fall in [base, base + footprint).
  std::uint64_t base = 0;
  double write_ratio = 0.0;        ///< Fraction of writes (the CLI gives "mix" 0.5 by default).
  std::uint64_t seed = 1;
};

/// Whether a stream of these options draws random numbers, so that its seed
/// matters: random, chase and mix draw addresses; seq and stride draw only to
/// pick writes, with a write ratio above 0.
bool draws_random(const PatternOptions& p);

class PatternSource : public RequestSource {
 public:
  /// Throws std::invalid_argument on an unknown pattern or bad sizes,
  /// naming the `mxcosim hbm` option that sets the field.
  explicit PatternSource(PatternOptions opt);
  Next next(SourceItem& out) override;
  void on_complete(const MemResponse& r) override;
  /// "--pattern P request N at 0xADDR of --size B": the options that made it.
  std::string where() const override;

 private:
  std::uint64_t uniform(std::uint64_t n) { return m_rng() % n; }  // n << 2^64: bias negligible, raw bits
  bool draw_write();

  enum class Kind { kSeq, kRandom, kStride, kChase, kMix };
  PatternOptions m_opt;
  Kind m_kind = Kind::kSeq;
  std::mt19937_64 m_rng;
  std::uint64_t m_issued = 0;
  std::uint64_t m_last_addr = 0;  // of the last request made (where())
  std::uint64_t m_slots;  // footprint / bytes
  std::uint64_t m_stride_lap = 1;  // stride: the requests that fit in the footprint before it starts again
  bool m_chase_waiting = false;
};

}  // namespace mxc::hbm
