#include "models/hbm/address_mapper.h"

#include <algorithm>
#include <bit>
#include <sstream>
#include <stdexcept>

namespace mxc::hbm {

namespace {
std::uint32_t log2_exact(std::uint32_t n, const char* what) {
  if (n == 0 || !std::has_single_bit(n))
    throw std::invalid_argument(std::string("address mapping needs a power-of-two ") + what + ", got " +
                                std::to_string(n));
  return static_cast<std::uint32_t>(std::countr_zero(n));
}
}  // namespace

AddressMapper::AddressMapper(const HbmOrg& org, const std::string& bit_order, bool xor_bank_hash)
    : m_offset_bits(log2_exact(org.burst_bytes(), "burst size")), m_xor(xor_bank_hash) {
  m_field_bits[kCh] = log2_exact(org.channels, "channel count");
  m_field_bits[kPc] = log2_exact(org.pseudo_channels, "pseudo-channel count");
  m_field_bits[kBg] = log2_exact(org.bank_groups, "bank-group count");
  m_field_bits[kBa] = log2_exact(org.banks_per_group, "banks per group");
  m_field_bits[kRo] = log2_exact(org.rows, "row count");
  m_field_bits[kCo] = log2_exact(org.bursts_per_row(), "bursts per row");
  static const char* kNames[kNumFields] = {"ch", "pc", "bg", "ba", "ro", "co"};

  // Parse most significant first, then assign bit positions from the bottom.
  struct Tok {
    Field f;
    int bits;  // -1 = the rest of the field
  };
  std::vector<Tok> toks;
  std::string s = bit_order;
  std::replace(s.begin(), s.end(), '-', ' ');
  std::istringstream in(s);
  for (std::string tok; in >> tok;) {
    const auto colon = tok.find(':');
    const std::string name = tok.substr(0, colon);
    auto it = std::find(std::begin(kNames), std::end(kNames), name);
    if (it == std::end(kNames))
      throw std::invalid_argument("address_mapping '" + bit_order + "': unknown field '" + name +
                                  "' (expected ch pc bg ba ro co)");
    const auto f = static_cast<Field>(it - std::begin(kNames));
    int bits = -1;
    if (colon != std::string::npos) {
      // Digits only: std::stoi would read "4x" as 4.
      const std::string count = tok.substr(colon + 1);
      if (count.empty() || !std::all_of(count.begin(), count.end(), [](char c) { return c >= '0' && c <= '9'; }))
        throw std::invalid_argument("address_mapping '" + bit_order + "': bad bit count in '" + tok +
                                    "' (expected a number of bits)");
      bits = 0;
      for (const char c : count) bits = std::min(bits * 10 + (c - '0'), 1000);  // saturates, never overflows
      // Bounded here so the sums below cannot wrap.
      if (static_cast<std::uint32_t>(bits) > m_field_bits[f])
        throw std::invalid_argument("address_mapping '" + bit_order + "': '" + tok + "' takes more than the " +
                                    std::to_string(m_field_bits[f]) + " bits of field '" + name + "'");
    }
    toks.push_back({f, bits});
  }
  std::uint32_t used[kNumFields]{};
  for (const Tok& t : toks)
    if (t.bits >= 0) used[t.f] += static_cast<std::uint32_t>(t.bits);
  int bare[kNumFields]{};
  for (const Tok& t : toks)
    if (t.bits < 0) ++bare[t.f];
  for (int f = 0; f < kNumFields; ++f) {
    if (bare[f] > 1 || used[f] > m_field_bits[f] || (bare[f] == 0 && used[f] != m_field_bits[f]))
      throw std::invalid_argument("address_mapping '" + bit_order + "': field '" + kNames[f] + "' must cover exactly " +
                                  std::to_string(m_field_bits[f]) + " bits");
  }
  std::uint32_t shift[kNumFields]{};
  for (auto it = toks.rbegin(); it != toks.rend(); ++it) {
    const std::uint32_t bits = it->bits >= 0 ? static_cast<std::uint32_t>(it->bits) : m_field_bits[it->f] - used[it->f];
    if (bits == 0) continue;
    m_slices.push_back({it->f, bits, shift[it->f]});
    shift[it->f] += bits;
  }
  for (const Slice& sl : m_slices) m_addr_bits += sl.bits;
  // The lowest slice holds the lowest bits of its field (shift 0). Capped
  // at 2^15: a run may be split anywhere, and runs count in 16 bits.
  if (!m_slices.empty() && m_slices.front().field == kCo)
    m_column_run = std::uint32_t{1} << std::min(m_slices.front().bits, 15u);
  std::uint32_t pack = 0;
  for (const int f : {kPc, kCh, kBa, kBg, kRo, kCo}) {  // the order decode_run relies on
    m_pack_shift[f] = pack;
    m_field_mask[f] = (std::uint64_t{1} << m_field_bits[f]) - 1;
    pack += m_field_bits[f];
  }
  // In 64 bits, capped: an organisation too large for 32-bit numbers (which
  // validate() rejects) must not make these shifts undefined first.
  const auto mask = [](std::uint32_t bits) {
    return static_cast<std::uint32_t>((std::uint64_t{1} << std::min(bits, 32u)) - 1);
  };
  m_flat_pc_mask = mask(m_field_bits[kPc] + m_field_bits[kCh]);
  m_flat_bank_mask = mask(m_field_bits[kBa] + m_field_bits[kBg]);
  if (pack <= 64) {  // always with real organisations; otherwise decode() walks the slices
    // At least the low byte's table: a memory of one burst maps no bits at all.
    const std::uint32_t bytes = std::max((m_addr_bits + 7) / 8, 1u);
    m_table.assign(std::size_t{bytes} * 256, 0);
    for (std::uint32_t k = 0; k < bytes; ++k)
      for (std::uint32_t v = 0; v < 256; ++v) {
        std::uint64_t a = static_cast<std::uint64_t>(v) << (8 * k);
        std::uint64_t packed = 0;
        for (const Slice& sl : m_slices) {
          packed |= (a & ((std::uint64_t{1} << sl.bits) - 1)) << (sl.shift + m_pack_shift[sl.field]);
          a >>= sl.bits;
        }
        m_table[k * 256 + v] = packed;
      }
    for (std::uint32_t v = 0; v < 256; ++v) m_low.push_back(flat(m_table[v]));
  }
}

BurstAddr AddressMapper::decode(std::uint64_t stack_addr) const {
  std::uint64_t a = stack_addr >> m_offset_bits;
  if (!m_table.empty()) return unpack(packed_high(a) | m_table[a & 0xff]);
  std::uint32_t v[kNumFields]{};
  for (const Slice& s : m_slices) {
    v[s.field] |= static_cast<std::uint32_t>(a & ((std::uint64_t{1} << s.bits) - 1)) << s.shift;
    a >>= s.bits;
  }
  if (m_xor) {
    v[kBa] ^= v[kRo] & ((1u << m_field_bits[kBa]) - 1);
    v[kBg] ^= (v[kRo] >> m_field_bits[kBa]) & ((1u << m_field_bits[kBg]) - 1);
  }
  return {v[kCh], v[kPc], v[kBg], v[kBa], v[kRo], v[kCo]};
}

std::uint64_t AddressMapper::encode(const BurstAddr& b) const {
  std::uint32_t v[kNumFields] = {b.channel, b.pc, b.bank_group, b.bank, b.row, b.col};
  if (m_xor) {
    v[kBa] ^= v[kRo] & ((1u << m_field_bits[kBa]) - 1);
    v[kBg] ^= (v[kRo] >> m_field_bits[kBa]) & ((1u << m_field_bits[kBg]) - 1);
  }
  std::uint64_t a = 0;
  std::uint32_t pos = 0;
  for (const Slice& s : m_slices) {
    a |= static_cast<std::uint64_t>((v[s.field] >> s.shift) & ((1u << s.bits) - 1)) << pos;
    pos += s.bits;
  }
  return a << m_offset_bits;
}

}  // namespace mxc::hbm
