// DRAMsim3 and Ramulator trace formats, plain and gzip, and their errors.
#include <catch2/catch.hpp>

#include <zlib.h>

#include <cstdio>
#include <fstream>

#include "models/hbm/closed_loop.h"
#include "models/hbm/trace_source.h"
#include "tests/hbm/hbm_test_util.h"

using namespace mxc;
using namespace mxc::hbm;

namespace {
std::string write_file(const std::string& name, const std::string& text, bool gz) {
  const std::string path = "/tmp/test_hbm_" + std::to_string(::getpid()) + "_" + name;
  if (gz) {
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    gzclose(f);
  } else {
    std::ofstream(path) << text;
  }
  return path;
}
}  // namespace

TEST_CASE("DRAMsim3 traces give address, direction and issue time") {
  for (bool gz : {false, true}) {
    const auto path = write_file("d3.trace", "# comment\n0x40 READ 10\n\n0x1000 WRITE 25\n", gz);
    TraceSource t(path, TraceFormat::kAuto, 1000, 64);
    SourceItem a, b, c;
    REQUIRE(t.next(a) == RequestSource::Next::kReady);
    CHECK(a.addr == 0x40);
    CHECK_FALSE(a.write);
    CHECK(a.at == 10000);
    REQUIRE(t.next(b) == RequestSource::Next::kReady);
    CHECK(b.write);
    CHECK(b.at == 25000);
    CHECK(t.next(c) == RequestSource::Next::kEnd);
    std::remove(path.c_str());
  }
}

TEST_CASE("traces take the address and command spellings DRAMsim3's and Ramulator 2's loaders take") {
  // DRAMsim3 reads the address with std::hex (0x, 0X or bare hex digits)
  // and takes WRITE, write, P_MEM_WR and BOFF as writes; Ramulator 2 reads
  // 0x / 0X as hex and bare digits as decimal.
  const auto d3 = write_file("d3_spellings.trace",
                             "0X1000 read 5\n1000 P_MEM_WR 6\nabc P_FETCH 7\n0x20 BOFF 8\n"
                             "40 P_MEM_RD 9\n0x8 write 10\n",
                             false);
  TraceSource t(d3, TraceFormat::kAuto, 1000, 64);
  const struct {
    std::uint64_t addr;
    bool write;
  } want[] = {{0x1000, false}, {0x1000, true}, {0xabc, false}, {0x20, true}, {0x40, false}, {0x8, true}};
  SourceItem s;
  for (const auto& w : want) {
    REQUIRE(t.next(s) == RequestSource::Next::kReady);
    CHECK(s.addr == w.addr);
    CHECK(s.write == w.write);
  }
  CHECK(t.next(s) == RequestSource::Next::kEnd);
  const auto ram = write_file("ram_spellings.trace", "LD 0X1000\nST 4096\nLD 0x10\n", false);
  TraceSource r(ram, TraceFormat::kAuto, 1000, 64);
  for (const auto& w : {std::pair{0x1000ull, false}, std::pair{4096ull, true}, std::pair{0x10ull, false}}) {
    REQUIRE(r.next(s) == RequestSource::Next::kReady);
    CHECK(s.addr == w.first);
    CHECK(s.write == w.second);
  }
  // Bare hex digits are not decimal in Ramulator's format, and a command
  // neither loader's traces use is refused.
  const auto bad = write_file("ram_bad.trace", "LD 1f\n", false);
  TraceSource rb(bad, TraceFormat::kAuto, 1000, 64);
  CHECK_THROWS_WITH(rb.next(s), Catch::Contains(":1: field address: expected 0x<hex> or decimal digits"));
  const auto bad_op = write_file("d3_bad_op.trace", "0x40 Read 1\n", false);
  TraceSource db(bad_op, TraceFormat::kAuto, 1000, 64);
  CHECK_THROWS_WITH(db.next(s), Catch::Contains(":1: field command: expected READ or WRITE"));
  for (const auto& p : {d3, ram, bad, bad_op}) std::remove(p.c_str());
}

TEST_CASE("Ramulator traces run through the model") {
  const auto path = write_file("ram.trace.gz", "LD 0x0\nST 0x40\nLD 0x40\n", true);
  TraceSource t(path, TraceFormat::kRamulator, 1000, 64);
  HbmModel m("hbm", test::preset("hbm2.yaml"));
  run_closed_loop(m, t, 8);
  CHECK(m.reads() == 2);
  CHECK(m.writes() == 1);
  std::remove(path.c_str());
}

TEST_CASE("trace errors name file and line") {
  const auto path = write_file("bad.trace", "0x40 READ 10\n0x50 FETCH 11\n", false);
  TraceSource t(path, TraceFormat::kDramsim3, 1000, 64);
  SourceItem a;
  t.next(a);
  CHECK_THROWS_WITH(t.next(a), Catch::Contains(path + ":2: field command"));
  const auto p2 = write_file("bad2.trace", "LD 4x0\n", false);
  TraceSource t2(p2, TraceFormat::kAuto, 1000, 64);
  CHECK_THROWS_WITH(t2.next(a), Catch::Contains(p2 + ":1: field address"));
  CHECK_THROWS_WITH(TraceSource("/nonexistent.trace", TraceFormat::kAuto, 1000, 64), Catch::Contains("cannot open"));
  // A cycle whose time would overflow the model's clock, an address whose
  // request passes 2^64; the last 64 bytes of the address space are fine.
  const auto p3 = write_file("bad3.trace",
                             "0xffffffffffffffc0 READ 4611686018427387\n0x0 READ 4611686018427388\n"
                             "ST 0xffffffffffffffc1\n",
                             false);
  TraceSource t3(p3, TraceFormat::kAuto, 1000, 64);
  CHECK(t3.next(a) == RequestSource::Next::kReady);
  CHECK(a.addr == 0xffffffffffffffc0);
  CHECK_THROWS_WITH(t3.next(a), Catch::Contains(p3 + ":2: field cycle: 4611686018427388 is too large"));
  TraceSource t4(p3, TraceFormat::kRamulator, 1000, 64);
  CHECK_THROWS_WITH(t4.next(a), Catch::Contains(p3 + ":1: expected LD or ST"));
  std::remove(p3.c_str());
  const auto p4 = write_file("bad4.trace", "ST 0xffffffffffffffc1\n", false);
  TraceSource t5(p4, TraceFormat::kAuto, 1000, 64);
  CHECK_THROWS_WITH(t5.next(a), Catch::Contains(p4 + ":1: field address: '0xffffffffffffffc1' with requests of 64 "
                                                     "bytes passes the end of the 64-bit address space"));
  std::remove(p4.c_str());
  std::remove(path.c_str());
  std::remove(p2.c_str());
}

namespace {
/// The first `n` bytes of a file, rewritten in place (a truncated copy).
void truncate_file(const std::string& path, std::size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data.substr(0, n);
}
}  // namespace

TEST_CASE("a trace longer than the read block gives every request in order") {
  // 60 000 lines (about 1.3 MB, several blocks), with every separator the
  // formats allow: spaces, tabs, CRLF, blank and comment lines, and a last
  // line without a newline. Each request is compared with the values the
  // generator wrote.
  struct Want {
    std::uint64_t addr, cycle;
    bool write;
  };
  std::vector<Want> want;
  std::string text;
  std::uint64_t x = 12345;
  const auto rnd = [&] { return x = x * 6364136223846793005ull + 1442695040888963407ull; };
  const char* const seps[] = {" ", "\t", "  \t "};
  for (int i = 0; i < 60000; ++i) {
    const Want w{rnd() >> 20, rnd() >> 40, (rnd() >> 63) != 0};
    want.push_back(w);
    char line[128];
    std::snprintf(line, sizeof line, "0x%llx%s%s%s%llu%s", static_cast<unsigned long long>(w.addr), seps[i % 3],
                  w.write ? "WRITE" : "READ", seps[(i / 3) % 3], static_cast<unsigned long long>(w.cycle),
                  i % 7 == 0 ? "\r\n" : "\n");
    text += line;
    if (i % 1000 == 0) text += "# a comment\n\n";
  }
  text.pop_back();  // the last line without its newline
  for (const bool gz : {false, true}) {
    const auto path = write_file(gz ? "long.trace.gz" : "long.trace", text, gz);
    TraceSource t(path, TraceFormat::kAuto, 1000, 64);
    SourceItem s;
    std::size_t n = 0;
    while (t.next(s) == RequestSource::Next::kReady) {
      REQUIRE(n < want.size());
      INFO("request " << n);
      REQUIRE(s.addr == want[n].addr);
      REQUIRE(s.at == want[n].cycle * 1000);
      REQUIRE(s.write == want[n].write);
      ++n;
    }
    CHECK(n == want.size());
    std::remove(path.c_str());
  }
}

TEST_CASE("a truncated gzip trace is a read error after its complete lines") {
  std::string text;
  for (int i = 0; i < 50000; ++i) text += "0x" + std::to_string(1000 + i) + " READ " + std::to_string(i) + "\n";
  const auto path = write_file("cut.trace.gz", text, true);
  truncate_file(path, 100000);  // about half of the compressed file
  TraceSource t(path, TraceFormat::kDramsim3, 1000, 64);
  SourceItem s;
  std::uint64_t n = 0;
  std::string error;
  try {
    while (t.next(s) == RequestSource::Next::kReady) {
      REQUIRE(s.at == n * 1000);  // every request before the cut, in order
      ++n;
    }
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  CHECK(n > 1000);
  CHECK(n < 50000);
  // The line after the last complete one is where the data ran out.
  CHECK_THAT(error, Catch::Contains(path + ":" + std::to_string(n + 1) + ": read error"));
  CHECK(error.find(path) == error.rfind(path));  // the file named once (zlib's message names it too)
  std::remove(path.c_str());
}

TEST_CASE("a gzip trace whose check value is wrong runs every line, then names the read error") {
  std::string text;
  for (int i = 0; i < 60000; ++i) text += "0x" + std::to_string(1000 + i) + " READ " + std::to_string(i) + "\n";
  const auto path = write_file("crc.trace.gz", text, true);
  {  // the trailer's CRC-32, 8 bytes from the end
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-8, std::ios::end);
    const char c = static_cast<char>(f.get());
    f.seekp(-8, std::ios::end);
    f.put(static_cast<char>(c ^ 1));
  }
  TraceSource t(path, TraceFormat::kDramsim3, 1000, 64);
  t.stop_at_error(true);
  SourceItem s;
  std::uint64_t n = 0;
  while (t.next(s) == RequestSource::Next::kReady) REQUIRE(s.at == n++ * 1000);
  CHECK(n == 60000);  // zlib's gzread dropped the last blocks it had inflated with the error
  CHECK(t.error() == path + ":60001: read error: incorrect data check");
  std::remove(path.c_str());
}

TEST_CASE("stopping at an error ends a trace after its good requests and says why, but not before the first") {
  const auto path = write_file("stop.trace", "0x40 READ 10\n0x80 WRITE 11\n0x50 FETCH 12\n0xc0 READ 13\n", false);
  TraceSource t(path, TraceFormat::kDramsim3, 1000, 64);
  t.stop_at_error(true);
  SourceItem a;
  REQUIRE(t.next(a) == RequestSource::Next::kReady);
  CHECK(a.addr == 0x40);
  REQUIRE(t.next(a) == RequestSource::Next::kReady);
  CHECK((a.addr == 0x80 && a.write));
  CHECK(t.error().empty());
  CHECK(t.next(a) == RequestSource::Next::kEnd);
  CHECK_THAT(t.error(), Catch::StartsWith(path + ":3: field command"));
  CHECK(t.next(a) == RequestSource::Next::kEnd);  // line 4 is never read: the trace ended at 3
  // A bad first request leaves nothing to run: still an error, thrown.
  const auto first = write_file("stop_first.trace", "# a comment\n0x50 FETCH 12\n0x40 READ 13\n", false);
  TraceSource t2(first, TraceFormat::kDramsim3, 1000, 64);
  t2.stop_at_error(true);
  CHECK_THROWS_WITH(t2.next(a), Catch::Contains(first + ":2: field command"));
  std::remove(path.c_str());
  std::remove(first.c_str());
}

TEST_CASE("a truncated gzip trace run to the end of its good lines completes each of them") {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "0x" + std::to_string(1000 + 64 * i) + " READ " + std::to_string(i) + "\n";
  const auto path = write_file("cut_run.trace.gz", text, true);
  truncate_file(path, 40000);
  // The requests the file holds before the cut, counted by reading it as a plain trace source would.
  std::uint64_t whole = 0;
  {
    TraceSource count(path, TraceFormat::kDramsim3, 1000, 64);
    SourceItem s;
    try {
      while (count.next(s) == RequestSource::Next::kReady) ++whole;
    } catch (const std::runtime_error&) {
    }
  }
  REQUIRE(whole > 100);
  HbmModel m("hbm", test::preset("hbm2.yaml"));
  TraceSource t(path, TraceFormat::kDramsim3, 1000, 64);
  t.stop_at_error(true);
  const LoopResult r = run_closed_loop(m, t, 16);
  CHECK(r.requests == whole);
  CHECK_THAT(t.error(), Catch::Contains(path + ":" + std::to_string(whole + 1) + ": read error"));
  std::remove(path.c_str());
}

TEST_CASE("trace fields are plain digits, lines have a length limit, and errors show bytes safely") {
  SourceItem s;
  const auto first_error = [&](const std::string& text) {
    const auto path = write_file("field.trace", text, false);
    std::string what;
    try {
      TraceSource t(path, TraceFormat::kAuto, 1000, 64);
      while (t.next(s) == RequestSource::Next::kReady) {
      }
    } catch (const std::runtime_error& e) {
      what = e.what();
    }
    std::remove(path.c_str());
    return what;
  };
  CHECK_THAT(first_error("0x0x40 READ 1\n"), Catch::Contains(":1: field address"));
  CHECK_THAT(first_error("0x40 READ +1\n"), Catch::Contains(":1: field cycle"));
  CHECK_THAT(first_error("0x40 READ -1\n"), Catch::Contains(":1: field cycle"));
  CHECK_THAT(first_error("0x1ffffffffffffffff READ 1\n"), Catch::Contains(":1: field address"));
  CHECK_THAT(first_error("0x40 READ 1\nLD 0x40\n"), Catch::Contains(":2: field address"));
  // Up to kMaxLine characters a line is read; one more is an error naming it.
  CHECK(first_error("0x40 READ 1\n#" + std::string(TraceSource::kMaxLine - 1, 'x') + "\n").empty());
  CHECK_THAT(first_error("0x40 READ 1\n#" + std::string(TraceSource::kMaxLine, 'x') + "\n0x80 READ 2\n"),
             Catch::Contains(":2: line longer than 4095 characters"));
  // A CRLF line's carriage return is its ending: 4095 characters and CR pass, 4096 and CR do not.
  CHECK(first_error("0x40 READ 1\r\n#" + std::string(TraceSource::kMaxLine - 1, 'x') + "\r\n0x80 READ 2\r\n").empty());
  CHECK_THAT(first_error("0x40 READ 1\r\n#" + std::string(TraceSource::kMaxLine, 'x') + "\r\n0x80 READ 2\r\n"),
             Catch::Contains(":2: line longer than 4095 characters"));
  // Not printable bytes are shown as \xNN and a long field is cut.
  const std::string shown = first_error(std::string("\x01\xff") + std::string(100, 'z') + " READ 1\n");
  CHECK_THAT(shown, Catch::Contains("got '\\x01\\xff" + std::string(38, 'z') + "'..."));
}

TEST_CASE("a trace of no requests is an error, and cycles that go back are counted") {
  for (bool gz : {false, true}) {
    for (const std::string text : {"", "# only a comment\n\n"}) {
      const auto path = write_file("none.trace", text, gz);
      TraceSource t(path, TraceFormat::kAuto, 1000, 64);
      SourceItem a;
      CHECK_THROWS_WITH(t.next(a), path + ": holds no requests (DRAMsim3 '0xADDR READ|WRITE cycle' or Ramulator "
                                          "'LD|ST 0xADDR' lines)");
      std::remove(path.c_str());
    }
  }
  // Lines 3 and 5 go back (before 20, the latest so far); 4 does not (20 is not before 20).
  const auto path = write_file("back.trace", "0x0 READ 10\n0x40 READ 20\n0x80 READ 5\n0xc0 READ 20\n0x100 READ 19\n",
                               false);
  TraceSource t(path, TraceFormat::kDramsim3, 1000, 64);
  HbmModel m("hbm", test::preset("hbm2.yaml"));
  run_closed_loop(m, t, 8);
  CHECK(m.reads() == 5);
  CHECK(t.backwards_lines() == 2);
  CHECK(t.first_backwards_line() == 3);
  std::remove(path.c_str());
}
