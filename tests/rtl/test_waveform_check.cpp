// fst_damage against waveforms cut short the ways a failing writer leaves
// them: a whole one passes, and no cut one does.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bridge/waveform_check.h"
#include "gtkwave/fstapi.h"
#include "cosim/program_run.h"
#include "tests/temp_dir.h"

using namespace mxc;

namespace {

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<char>& bytes, std::size_t n) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(n));
}

/// The offsets of a whole FST file's blocks: each is a type byte and a
/// big-endian length that counts itself and the block's contents.
std::vector<std::size_t> block_starts(const std::vector<char>& f) {
  std::vector<std::size_t> starts;
  for (std::size_t p = 0; p + 9 <= f.size();) {
    starts.push_back(p);
    std::uint64_t len = 0;
    for (int i = 1; i <= 8; ++i) len = len << 8 | static_cast<unsigned char>(f[p + i]);
    p += 1 + len;
  }
  return starts;
}

}  // namespace

TEST_CASE("a waveform cut short is found damaged at every length, and a whole one is not") {
  const testing::TempDir tmp;
  const std::string whole = tmp / "whole.fst", cut = tmp / "cut.fst";
  ProgramRunOptions o;
  o.waveform = whole;
  const ProgramRunResult r = run_program_cosim(o, SparseMemory{}, Program{}, {});
  REQUIRE(r.error.empty());
  CHECK(fst_damage(whole).empty());
  const std::vector<char> f = read_bytes(whole);
  const std::vector<std::size_t> starts = block_starts(f);
  REQUIRE(starts.size() >= 3);  // header, value changes, ..., hierarchy
  REQUIRE(f[starts.back()] == 6);  // the hierarchy, packed with LZ4, last

  SECTION("every prefix, as a file cut off") {
    for (std::size_t n = 0; n < f.size(); n += n < 400 ? 1 : 37) {
      write_bytes(cut, f, n);
      INFO("first " << n << " of " << f.size() << " bytes");
      CHECK_FALSE(fst_damage(cut).empty());
    }
  }
  SECTION("cut inside the hierarchy, as the writer leaves it: the block's length what was written") {
    const std::size_t hier = starts.back();
    for (std::size_t n = hier + 9 + 8; n < f.size(); ++n) {
      std::vector<char> g(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(n));
      std::uint64_t len = n - hier - 1;
      for (int i = 8; i >= 1; --i, len >>= 8) g[hier + i] = static_cast<char>(len & 0xff);
      write_bytes(cut, g, g.size());
      INFO("first " << n << " of " << f.size() << " bytes");
      CHECK_FALSE(fst_damage(cut).empty());
    }
  }
  SECTION("a block the writer never finished") {
    std::vector<char> g = f;
    g[starts[1]] = static_cast<char>(255);
    write_bytes(cut, g, g.size());
    CHECK(fst_damage(cut).find("never finished") != std::string::npos);
  }
  SECTION("not an FST file") {
    write_bytes(cut, std::vector<char>(64, 'x'), 64);
    CHECK(fst_damage(cut) == "it does not start with an FST header");
    CHECK(fst_damage(tmp / "missing.fst") == "it cannot be read");
  }
}

TEST_CASE("a waveform with a hierarchy packed twice (a large array's) is whole, and found cut short") {
  // Past 4 MiB of hierarchy the FST writer packs it with LZ4 twice (block type 7): a 128x128
  // tile's waveform does. 120 000 signals of long names get there.
  const testing::TempDir tmp;
  const std::string whole = tmp / "big.fst", cut = tmp / "cut.fst";
  void* w = fstWriterCreate(whole.c_str(), 1);
  fstWriterSetPackType(w, FST_WR_PT_LZ4);
  fstWriterSetScope(w, FST_ST_VCD_MODULE, "top", nullptr);
  std::vector<fstHandle> h;
  for (int i = 0; i < 120'000; ++i)
    h.push_back(fstWriterCreateVar(w, FST_VT_VCD_WIRE, FST_VD_IMPLICIT, 8,
                                   ("a_long_signal_name_so_the_hierarchy_grows_" + std::to_string(i)).c_str(), 0));
  fstWriterSetUpscope(w);
  for (int t = 0; t < 3; ++t) {
    fstWriterEmitTimeChange(w, static_cast<std::uint64_t>(t));
    for (std::size_t i = 0; i < h.size(); i += 97) fstWriterEmitValueChange(w, h[i], t % 2 ? "10101010" : "01010101");
  }
  fstWriterClose(w);
  CHECK(fst_damage(whole).empty());
  const std::vector<char> f = read_bytes(whole);
  const std::vector<std::size_t> starts = block_starts(f);
  REQUIRE(f[starts.back()] == 7);
  const std::size_t hier = starts.back();
  for (std::size_t n = hier + 9 + 8; n < f.size(); n += 1 + (f.size() - hier) / 200) {
    std::vector<char> g(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(n));
    std::uint64_t len = n - hier - 1;
    for (int i = 8; i >= 1; --i, len >>= 8) g[hier + i] = static_cast<char>(len & 0xff);
    write_bytes(cut, g, g.size());
    INFO("first " << n << " of " << f.size() << " bytes");
    CHECK_FALSE(fst_damage(cut).empty());
  }
}
