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
  std::vector<Slice> m_slices;  // least significant first
  std::uint32_t m_offset_bits;
  std::uint32_t m_field_bits[kNumFields]{};
  bool m_xor;
  // decode() by table: the mapped address bits, a byte at a time, each
  // byte value -> its fields' bits packed at m_pack_shift (built from m_slices).
  std::uint32_t m_pack_shift[kNumFields]{};
  std::uint64_t m_field_mask[kNumFields]{};
  std::uint32_t m_addr_bits = 0;                // bits of the burst address that map
  std::vector<std::uint64_t> m_table;           // [byte index * 256 + byte value]
};

}  // namespace mxc::hbm
