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
  const auto p2 = write_file("bad2.trace", "LD 40\n", false);
  TraceSource t2(p2, TraceFormat::kAuto, 1000, 64);
  CHECK_THROWS_WITH(t2.next(a), Catch::Contains(p2 + ":1: field address"));
  CHECK_THROWS_WITH(TraceSource("/nonexistent.trace", TraceFormat::kAuto, 1000, 64), Catch::Contains("cannot open"));
  std::remove(path.c_str());
  std::remove(p2.c_str());
}
