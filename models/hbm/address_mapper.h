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

class AddressMapper {
 public:
  /// Throws std::invalid_argument naming the offending field.
  AddressMapper(const HbmOrg& org, const std::string& bit_order, bool xor_bank_hash);

  BurstAddr decode(std::uint64_t stack_addr) const;
  /// The `n` consecutive bursts from `stack_addr`, passed to
  /// out(i, pc, bank, row, col) with pc = channel * pseudo_channels + pc and
  /// bank = bank_group * banks_per_group + bank (what decode() gives, in the
  /// controllers' flat numbering). The address bits above the lowest byte
  /// are looked up once per 256 bursts instead of once per burst (a request
  /// is split this way).
  template <class Out>
  void decode_run(std::uint64_t stack_addr, std::uint32_t n, Out&& out) const {
    if (m_table.empty()) {
      for (std::uint32_t i = 0; i < n; ++i) {
        const BurstAddr d = decode(stack_addr + (std::uint64_t{i} << m_offset_bits));
        out(i, (d.channel << m_field_bits[kPc]) | d.pc, (d.bank_group << m_field_bits[kBa]) | d.bank, d.row, d.col);
      }
      return;
    }
    std::uint64_t a = stack_addr >> m_offset_bits;
    std::uint64_t high = packed_high(a);
    const Unpack u = m_unpack;  // in locals: the stores to out() might alias the members
    for (std::uint32_t i = 0; i < n; ++i, ++a) {
      if (i && (a & 0xff) == 0) high = packed_high(a);
      u.emit(i, high | m_table[a & 0xff], out);
    }
  }
  /// The bits of a burst address above its lowest byte, as last looked up.
  struct HighCache {
    std::uint64_t key = ~std::uint64_t{0};  // burst address >> 8
    std::uint64_t packed = 0;
  };
  /// decode_run of the one burst at `stack_addr`; `cache` keeps the lookup
  /// of its address above the lowest byte for the next call (a tile's
  /// one-burst requests are mostly near each other).
  template <class Out>
  void decode_one(std::uint64_t stack_addr, HighCache& cache, Out&& out) const {
    if (m_table.empty()) return decode_run(stack_addr, 1, out);
    const std::uint64_t a = stack_addr >> m_offset_bits;
    if (a >> 8 != cache.key) cache.key = a >> 8, cache.packed = packed_high(a);
    m_unpack.emit(0, cache.packed | m_table[a & 0xff], out);
  }
  /// Inverse of decode (the burst's first byte); used by tests and generators.
  std::uint64_t encode(const BurstAddr& a) const;
  std::uint32_t offset_bits() const { return m_offset_bits; }

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
  /// Packed fields -> out(i, flat pseudo-channel, flat bank, row, col). The
  /// table packs pc below ch and ba below bg, so each pair reads as one flat
  /// number; the XOR hash on the flat bank is the same as on ba and bg apart
  /// (banks_per_group is a power of two).
  struct Unpack {
    std::uint32_t pc_mask, bank_mask, bank_shift, row_shift, col_shift;
    std::uint64_t row_mask, col_mask;
    bool xor_hash;
    template <class Out>
    void emit(std::uint32_t i, std::uint64_t p, Out& out) const {
      const auto row = static_cast<std::uint32_t>((p >> row_shift) & row_mask);
      auto bank = static_cast<std::uint32_t>(p >> bank_shift) & bank_mask;
      if (xor_hash) bank ^= row & bank_mask;
      out(i, static_cast<std::uint32_t>(p) & pc_mask, bank, row, static_cast<std::uint32_t>((p >> col_shift) & col_mask));
    }
  };
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
  Unpack m_unpack{};  // the same figures for decode_run
  std::uint32_t m_addr_bits = 0;                // bits of the burst address that map
  std::vector<std::uint64_t> m_table;           // [byte index * 256 + byte value]
};

}  // namespace mxc::hbm
