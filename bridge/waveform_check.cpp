#include "bridge/waveform_check.h"

#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include "gtkwave/lz4.h"

namespace mxc {

namespace {

// Block types (gtkwave's fstapi.h): the header, the hierarchy packed with
// gzip, LZ4 or LZ4 twice, and a block the writer had not finished.
constexpr int kHeader = 0, kHierGzip = 4, kHierLz4 = 6, kHierLz4Twice = 7, kUnfinished = 255;
// LZ4 and gzip expand at most about 255 times: a larger declared length is
// a damaged field, not something to allocate.
constexpr std::uint64_t kMaxRatio = 256;

std::uint64_t big_endian(const unsigned char* b) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | b[i];
  return v;
}

/// `n` bytes of LZ4 in `in` unpacked to exactly `out_len` bytes, or nothing.
std::optional<std::vector<char>> unlz4(const char* in, std::uint64_t n, std::uint64_t out_len) {
  if (n > 0x7fffffff || out_len > 0x7fffffff || out_len > kMaxRatio * n + 16) return std::nullopt;
  std::vector<char> out(out_len);
  const int got = LZ4_decompress_safe(in, out.data(), static_cast<int>(n), static_cast<int>(out_len));
  if (got < 0 || static_cast<std::uint64_t>(got) != out_len) return std::nullopt;
  return out;
}

/// Whether `n` bytes of a gzip stream unpack to exactly `out_len` bytes.
bool gunzips_to(const unsigned char* in, std::uint64_t n, std::uint64_t out_len) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return false;
  z.next_in = const_cast<unsigned char*>(in);
  z.avail_in = static_cast<uInt>(n);
  unsigned char buf[1 << 14];
  std::uint64_t total = 0;
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = buf;
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    total += sizeof buf - z.avail_out;
  }
  inflateEnd(&z);
  return rc == Z_STREAM_END && total == out_len;
}

}  // namespace

std::string fst_damage(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "it cannot be read";
  const auto size = static_cast<std::uint64_t>(in.tellg());
  const auto at = [](std::uint64_t p) { return " at byte " + std::to_string(p); };
  const std::string of_size = " of the file's " + std::to_string(size);
  std::uint64_t hier = 0, hier_len = 0;
  int hier_type = -1;
  for (std::uint64_t p = 0; p < size;) {
    unsigned char head[9];
    if (size - p < sizeof head) return "it ends inside a block's header" + at(p) + of_size;
    in.seekg(static_cast<std::streamoff>(p));
    in.read(reinterpret_cast<char*>(head), sizeof head);
    if (!in) return "it cannot be read" + at(p);
    const int type = head[0];
    const std::uint64_t len = big_endian(head + 1);  // counts its own 8 bytes, not the type's
    if (p == 0 && type != kHeader) return "it does not start with an FST header";
    if (type == kUnfinished) return "the block" + at(p) + " was never finished";
    if (len < 8 || len > size - p - 1)
      return "the block" + at(p) + " claims " + std::to_string(len) + " bytes, past the end" + of_size;
    if (type == kHierGzip || type == kHierLz4 || type == kHierLz4Twice) hier = p, hier_len = len, hier_type = type;
    p += 1 + len;
  }
  if (hier_type < 0) return "it has no hierarchy (" + std::to_string(size) + " bytes)";
  // The hierarchy block: its unpacked length, then the packed bytes.
  if (hier_len < 16) return "its hierarchy block" + at(hier) + " is too short";
  std::vector<char> block(hier_len - 8);
  in.seekg(static_cast<std::streamoff>(hier + 9));
  in.read(block.data(), static_cast<std::streamsize>(block.size()));
  if (!in) return "its hierarchy block" + at(hier) + " cannot be read";
  const std::uint64_t unpacked = big_endian(reinterpret_cast<const unsigned char*>(block.data()));
  const char* packed = block.data() + 8;
  std::uint64_t packed_len = block.size() - 8;
  bool whole = false;
  if (hier_type == kHierGzip) {
    whole = gunzips_to(reinterpret_cast<const unsigned char*>(packed), packed_len, unpacked);
  } else if (hier_type == kHierLz4) {
    whole = unlz4(packed, packed_len, unpacked).has_value();
  } else {
    // Packed twice: the length after the first unpacking leads, as a
    // little-endian base-128 number.
    std::uint64_t once = 0;
    unsigned shift = 0;
    std::uint64_t used = 0;
    for (; used < packed_len && used < 10; ++used) {
      const auto b = static_cast<unsigned char>(packed[used]);
      once |= std::uint64_t{b & 0x7fu} << shift;
      shift += 7;
      if (!(b & 0x80)) break;
    }
    if (used < packed_len) {
      const auto first = unlz4(packed + used + 1, packed_len - used - 1, once);
      whole = first && unlz4(first->data(), first->size(), unpacked).has_value();
    }
  }
  if (!whole)
    return "its hierarchy block" + at(hier) + " does not unpack to the " + std::to_string(unpacked) +
           " bytes it declares (" + std::to_string(size) + " bytes in all)";
  return {};
}

std::string remove_fst_if_damaged(const std::string& path) {
  std::string damage = fst_damage(path);
  std::error_code ec;
  if (!damage.empty()) std::filesystem::remove(path, ec);
  return damage;
}

}  // namespace mxc
