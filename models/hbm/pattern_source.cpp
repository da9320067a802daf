#include "models/hbm/pattern_source.h"

#include <stdexcept>
#include <string>

#include "models/core/hex.h"

namespace mxc::hbm {

bool draws_random(const PatternOptions& p) {
  return (p.pattern != "seq" && p.pattern != "stride") || p.write_ratio > 0.0;
}

PatternSource::PatternSource(PatternOptions opt) : m_opt(std::move(opt)), m_rng(m_opt.seed) {
  // Messages name the options of `mxcosim hbm`, which sets these fields.
  const auto& p = m_opt.pattern;
  if (p != "seq" && p != "random" && p != "stride" && p != "chase" && p != "mix")
    throw std::invalid_argument("--pattern: unknown pattern '" + p + "' (expected seq, random, stride, chase or mix)");
  if (m_opt.bytes == 0) throw std::invalid_argument("--size: must be > 0");
  if (m_opt.footprint < m_opt.bytes)
    throw std::invalid_argument("--footprint " + std::to_string(m_opt.footprint) +
                                ": must hold at least one request of --size " + std::to_string(m_opt.bytes) + " bytes");
  if (p == "stride" && m_opt.stride == 0) throw std::invalid_argument("--stride: must be > 0");
  if (!(m_opt.write_ratio >= 0.0 && m_opt.write_ratio <= 1.0))
    throw std::invalid_argument("--write-ratio: must be in [0, 1]");
  m_slots = m_opt.footprint / m_opt.bytes;
  if (p == "stride") {
    const std::uint64_t span = m_slots * m_opt.bytes;  // the footprint's whole requests
    if (m_opt.stride > span - m_opt.bytes)
      throw std::invalid_argument("--stride " + std::to_string(m_opt.stride) + ": the second request, at " +
                                  std::to_string(m_opt.stride) + ", would not fit in --footprint " +
                                  std::to_string(m_opt.footprint) + " with --size " + std::to_string(m_opt.bytes) +
                                  " (whole requests end by byte " + std::to_string(span) + ")");
    // Requests at 0, stride, 2 x stride, ... while one fits, then from 0 again.
    m_stride_lap = (span - m_opt.bytes) / m_opt.stride + 1;
  }
  m_kind = p == "seq" ? Kind::kSeq : p == "random" ? Kind::kRandom : p == "stride" ? Kind::kStride
           : p == "chase" ? Kind::kChase : Kind::kMix;
}

bool PatternSource::draw_write() {
  if (m_opt.write_ratio <= 0.0) return false;
  // 53 random bits as a fraction in [0, 1).
  const double u = static_cast<double>(m_rng() >> 11) * (1.0 / 9007199254740992.0);
  return u < m_opt.write_ratio;
}

RequestSource::Next PatternSource::next(SourceItem& out) {
  if (m_issued >= m_opt.requests) return Next::kEnd;
  std::uint64_t offset = 0;
  if (m_kind == Kind::kSeq) {
    offset = (m_issued % m_slots) * m_opt.bytes;
  } else if (m_kind == Kind::kStride) {
    offset = (m_issued % m_stride_lap) * m_opt.stride;
  } else {  // random, mix, chase
    if (m_kind == Kind::kChase && m_chase_waiting) return Next::kWait;
    offset = uniform(m_slots) * m_opt.bytes;
  }
  out.addr = m_opt.base + offset;
  m_last_addr = out.addr;
  out.bytes = m_opt.bytes;
  out.write = m_kind == Kind::kChase ? false : draw_write();
  out.at = 0;
  // A pointer chase has one load in flight, as if its data held the next address.
  m_chase_waiting = m_kind == Kind::kChase;
  ++m_issued;
  return Next::kReady;
}

void PatternSource::on_complete(const MemResponse&) { m_chase_waiting = false; }

std::string PatternSource::where() const {
  if (m_issued == 0) return {};
  return "--pattern " + m_opt.pattern + " request " + std::to_string(m_issued - 1) + " at " + hex(m_last_addr) +
         " of --size " + std::to_string(m_opt.bytes);
}

}  // namespace mxc::hbm
