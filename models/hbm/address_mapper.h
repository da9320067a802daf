#pragma once
// Splits a stack-local address into pseudo-channel, bank and row/column
// coordinates from a bit-order string, most significant field first, e.g.
// "ro-ba-co:4-ch-pc-bg-co:1": the lowest burst-offset bits are implicit, then
// one column bit, the bank-group bits, ... Fields: ch pc bg ba ro co; "f:n"
// takes n bits of field f (its low bits first), a bare name the rest.
#include <cstdint>
#include <string>
#include <vector>

#include "models/hbm/hbm_spec.h"

namespace mxc::hbm {

/// Coordinates of one burst inside a stack.
struct BurstAddr {
  std::uint32_t channel = 0, pc = 0, bank_group = 0, bank = 0, row = 0, col = 0;
};

/// Where one burst goes, in the controllers' flat numbering.
struct BurstTarget {
  std::uint32_t pc = 0;    ///< Global pseudo-channel: stack * pcs_per_stack + channel * pcs + pc.
  std::uint32_t bank = 0;  ///< Flat bank index: bank_group * banks_per_group + bank.
  std::uint32_t row = 0, col = 0;
};

class AddressMapper {
 public:
  /// Throws std::invalid_argument naming the offending field.
  AddressMapper(const HbmOrg& org, const std::string& bit_order, bool xor_bank_hash);

  BurstAddr decode(std::uint64_t stack_addr) const;
  /// The `n` consecutive bursts from `stack_addr`, written to out[0, n):
  /// what decode() gives, with pc = channel * pseudo_channels + pc and
  /// bank = bank_group * banks_per_group + bank (the controllers' flat
  /// numbering; pc within the stack). The address bits above the lowest
  /// byte are looked up once per 256 bursts, and each burst is their
  /// coordinates combined with its low byte's (a request is split this way).
  void decode_run(std::uint64_t stack_addr, std::uint32_t n, BurstTarget* out) const {
    if (m_table.empty()) {
      for (std::uint32_t i = 0; i < n; ++i) {
        const BurstAddr d = decode(stack_addr + (std::uint64_t{i} << m_offset_bits));
        out[i] = {(d.channel << m_field_bits[kPc]) | d.pc, (d.bank_group << m_field_bits[kBa]) | d.bank, d.row, d.col};
      }
      return;
    }
    std::uint64_t a = stack_addr >> m_offset_bits;
    BurstTarget high = flat_high(a);
    for (std::uint32_t i = 0; i < n; ++i, ++a) {
      if (i && (a & 0xff) == 0) high = flat_high(a);
      out[i] = combine(high, m_low[a & 0xff]);
    }
  }
  /// The coordinates of a burst address's bits above its lowest byte, as
  /// last looked up.
  struct HighCache {
    std::uint64_t key = ~std::uint64_t{0};  // burst address >> 8
    BurstTarget high;
  };
  /// decode_run of the one burst at `stack_addr`; `cache` keeps the lookup
  /// of its address above the lowest byte for the next call (a tile's
  /// one-burst requests are mostly near each other).
  BurstTarget decode_one(std::uint64_t stack_addr, HighCache& cache) const {
    BurstTarget t;
    if (m_table.empty()) {
      decode_run(stack_addr, 1, &t);
      return t;
    }
    const std::uint64_t a = stack_addr >> m_offset_bits;
    if (a >> 8 != cache.key) cache.key = a >> 8, cache.high = flat_high(a);
    return combine(cache.high, m_low[a & 0xff]);
  }
  /// Inverse of decode (the burst's first byte); used by tests and generators.
  std::uint64_t encode(const BurstAddr& a) const;
  std::uint32_t offset_bits() const { return m_offset_bits; }
  /// Bursts that stay in one row of one bank at consecutive columns: when
  /// the lowest mapped address bits are column bits, 2^(their count),
  /// else 1. Burst addresses aligned to it start such a run, and a burst's
  /// place in its run is its column modulo it (the controllers queue a
  /// run as one entry).
  std::uint32_t column_run() const { return m_column_run; }

 private:
  enum Field { kCh, kPc, kBg, kBa, kRo, kCo, kNumFields };
  struct Slice {
    Field field;
    std::uint32_t bits;
    std::uint32_t shift;  // position inside the field
  };
  /// The table's packed fields of burst address `a` without its lowest byte.
  std::uint64_t packed_high(std::uint64_t a) const {
    std::uint64_t packed = 0;
    a >>= 8;
    for (std::size_t k = 256; k < m_table.size(); k += 256, a >>= 8) packed |= m_table[k + (a & 0xff)];
    return packed;
  }
  /// Packed fields -> flat coordinates, with the XOR hash on the flat bank
  /// (the same as on ba and bg apart: banks_per_group is a power of two).
  /// The table packs pc below ch and ba below bg, so each pair reads as one
  /// flat number.
  BurstTarget flat(std::uint64_t p) const {
    BurstTarget t{static_cast<std::uint32_t>(p) & m_flat_pc_mask,
                  static_cast<std::uint32_t>(p >> m_pack_shift[kBa]) & m_flat_bank_mask,
                  static_cast<std::uint32_t>((p >> m_pack_shift[kRo]) & m_field_mask[kRo]),
                  static_cast<std::uint32_t>((p >> m_pack_shift[kCo]) & m_field_mask[kCo])};
    if (m_xor) t.bank ^= t.row & m_flat_bank_mask;
    return t;
  }
  BurstTarget flat_high(std::uint64_t a) const { return flat(packed_high(a)); }
  /// A burst's coordinates from those of its address's bits above and in
  /// its lowest byte. Different address bits never feed the same bit of a
  /// field, so the parts combine by XOR (as by OR), and so does the hash:
  /// (bank ^ row & mask) of the whole is the XOR of the parts' own.
  static BurstTarget combine(const BurstTarget& high, const BurstTarget& low) {
    return {high.pc ^ low.pc, high.bank ^ low.bank, high.row ^ low.row, high.col ^ low.col};
  }
  /// Packed fields -> coordinates (with the XOR hash when on); inline, so
  /// the coordinates stay in registers.
  BurstAddr unpack(std::uint64_t packed) const {
    const auto field = [&](int f) { return static_cast<std::uint32_t>((packed >> m_pack_shift[f]) & m_field_mask[f]); };
    BurstAddr d{field(kCh), field(kPc), field(kBg), field(kBa), field(kRo), field(kCo)};
    if (m_xor) {
      // Permutation-based interleaving: rows that collide in one bank are
      // spread over banks and bank groups.
      d.bank ^= d.row & ((1u << m_field_bits[kBa]) - 1);
      d.bank_group ^= (d.row >> m_field_bits[kBa]) & ((1u << m_field_bits[kBg]) - 1);
    }
    return d;
  }

  std::vector<Slice> m_slices;  // least significant first
  std::uint32_t m_offset_bits;
  std::uint32_t m_field_bits[kNumFields]{};
  bool m_xor;
  // decode() by table: the mapped address bits, a byte at a time, each
  // byte value -> its fields' bits packed at m_pack_shift (built from
  // m_slices), from the bottom: pc, ch, ba, bg, ro, co.
  std::uint32_t m_pack_shift[kNumFields]{};
  std::uint64_t m_field_mask[kNumFields]{};
  std::uint32_t m_flat_pc_mask = 0, m_flat_bank_mask = 0;  // flat pseudo-channel and bank bits
  std::uint32_t m_addr_bits = 0;                // bits of the burst address that map
  std::uint32_t m_column_run = 1;               // column_run()
  std::vector<std::uint64_t> m_table;           // [byte index * 256 + byte value]
  std::vector<BurstTarget> m_low;               // flat(m_table[v]) for the lowest byte's values v
};

}  // namespace mxc::hbm
