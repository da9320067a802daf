// Plain and gzip files read back byte for byte; a damaged or cut gzip file
// gives every byte before the damage, then says what was wrong.
#include <catch2/catch.hpp>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/core/compressed_file.h"
#include "tests/temp_dir.h"

using namespace mxc;

namespace {

std::string lines(int n, int from = 0) {
  std::string text;
  for (int i = from; i < from + n; ++i)
    text += "0x" + std::to_string(1000 + 64 * i) + " READ " + std::to_string(i) + "\n";
  return text;
}

std::string gzip(const std::string& text) {
  const mxc::testing::TempDir tmp;
  const std::string path = (tmp.path() / "t.gz").string();
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

/// Everything the reader gives, read `chunk` bytes at a time.
std::string read_all(CompressedFileReader& r, std::size_t chunk) {
  std::string out(chunk, '\0'), all;
  while (const std::size_t n = r.read(out.data(), chunk)) all.append(out.data(), n);
  return all;
}

}  // namespace

TEST_CASE("plain and gzip files read back as written, in reads of any size") {
  const mxc::testing::TempDir tmp;
  const std::string text = lines(20000);
  write(tmp.path() / "plain", text);
  // Two gzip members one after the other, as `cat a.gz b.gz` makes, then bytes that are no member.
  write(tmp.path() / "two.gz", gzip(text) + gzip(lines(100, 20000)) + "trailing");
  for (const std::size_t chunk : {std::size_t{7}, std::size_t{1} << 18}) {
    CompressedFileReader plain((tmp.path() / "plain").string());
    CHECK(read_all(plain, chunk) == text);
    CHECK(plain.error().empty());
    CompressedFileReader two((tmp.path() / "two.gz").string());
    CHECK(read_all(two, chunk) == text + lines(100, 20000));
    CHECK(two.error().empty());
  }
  write(tmp.path() / "empty", "");
  CompressedFileReader empty((tmp.path() / "empty").string());
  CHECK(read_all(empty, 64).empty());
  CHECK(empty.error().empty());
}

TEST_CASE("a gzip file whose check value is wrong gives all of its content, then the error") {
  const mxc::testing::TempDir tmp;
  const std::string text = lines(60000);
  std::string gz = gzip(text);
  gz[gz.size() - 8] = static_cast<char>(gz[gz.size() - 8] ^ 0x01);  // the CRC-32 of the trailer
  write(tmp.path() / "crc.gz", gz);
  CompressedFileReader r((tmp.path() / "crc.gz").string());
  CHECK(read_all(r, std::size_t{1} << 18) == text);
  CHECK(r.error() == "incorrect data check");
}

TEST_CASE("a cut gzip file gives the content before the cut, then the error, in reads of any size") {
  const mxc::testing::TempDir tmp;
  const std::string text = lines(60000);
  const std::string gz = gzip(text);
  write(tmp.path() / "cut.gz", gz.substr(0, gz.size() / 2));
  // What zlib itself decodes from the cut stream in one go: the content to expect.
  std::string want(text.size(), '\0');
  z_stream z{};
  REQUIRE(inflateInit2(&z, 16 + MAX_WBITS) == Z_OK);
  std::string half = gz.substr(0, gz.size() / 2);
  z.next_in = reinterpret_cast<unsigned char*>(half.data());
  z.avail_in = static_cast<unsigned>(half.size());
  z.next_out = reinterpret_cast<unsigned char*>(want.data());
  z.avail_out = static_cast<unsigned>(want.size());
  CHECK(inflate(&z, Z_NO_FLUSH) == Z_OK);
  want.resize(want.size() - z.avail_out);
  inflateEnd(&z);
  // Half the compressed bytes hold about half the text.
  REQUIRE(want.size() > text.size() / 3);
  REQUIRE(text.compare(0, want.size(), want) == 0);
  for (const std::size_t chunk : {std::size_t{7}, std::size_t{1} << 18}) {
    INFO("reads of " << chunk);
    CompressedFileReader r((tmp.path() / "cut.gz").string());
    CHECK(read_all(r, chunk) == want);
    CHECK(r.error() == "unexpected end of file");
  }
  // Cut anywhere and read a few bytes at a time: a read whose room ran out as the file did left
  // output inside zlib (up to a match's 258 bytes), which the next read must still give.
  const std::string small = gzip(lines(3000));
  int differ = 0;
  for (std::size_t cut = 20; cut + 8 < small.size(); cut += 37) {
    std::string part = small.substr(0, cut);
    std::string expect(64 * 3000, '\0');
    z_stream y{};
    REQUIRE(inflateInit2(&y, 16 + MAX_WBITS) == Z_OK);
    y.next_in = reinterpret_cast<unsigned char*>(part.data());
    y.avail_in = static_cast<unsigned>(part.size());
    y.next_out = reinterpret_cast<unsigned char*>(expect.data());
    y.avail_out = static_cast<unsigned>(expect.size());
    inflate(&y, Z_NO_FLUSH);
    expect.resize(expect.size() - y.avail_out);
    inflateEnd(&y);
    write(tmp.path() / "part.gz", part);
    for (const std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{64}}) {
      CompressedFileReader r((tmp.path() / "part.gz").string());
      differ += read_all(r, chunk) != expect;
    }
  }
  CHECK(differ == 0);
}

TEST_CASE("a file that cannot be read is named, and a folder read as one ends with the reason") {
  const mxc::testing::TempDir tmp;
  CHECK_THROWS_WITH(CompressedFileReader((tmp.path() / "none").string()),
                    (tmp.path() / "none").string() + ": cannot open (No such file or directory)");
  CompressedFileReader dir(tmp.path().string());
  CHECK(read_all(dir, 64).empty());
  CHECK(dir.error() == "Is a directory");
}
