// The trace file: valid Chrome trace-event JSON after gunzip, exact
// timestamps, byte-identical on a repeat, clear errors.
#include <catch2/catch.hpp>

#include <string>

#include "cosim/trace_writer.h"
#include "tests/checkers/trace_file.h"
#include "tests/temp_dir.h"

using namespace mxc;
using nlohmann::json;

namespace {

void write_small(const std::string& path) {
  TraceWriter t(path);
  t.process(1, "chip0");
  t.thread(1, 2, "dma", 2);
  t.complete(1, 2, "DMA_LOAD", "instr", 1'500, 2'000'250, {{"index", 0}, {"instr", "dma_load \"x\""}});
  t.instant(1, 2, "FENCE", "instr", 3'000'000);
  t.counter(1, "outstanding", 4'000'001, {{"reads", 3}});
  t.close();
}

}  // namespace

TEST_CASE("picoseconds print as microseconds with six exact decimals", "[trace]") {
  CHECK(trace_microseconds(0) == "0.000000");
  CHECK(trace_microseconds(1) == "0.000001");
  CHECK(trace_microseconds(1'500) == "0.001500");
  CHECK(trace_microseconds(2'000'250) == "2.000250");
  // 2^53 + 1 ps would lose its last digit as a double; the text keeps it.
  CHECK(trace_microseconds(9'007'199'254'740'993ULL) == "9007199254.740993");
}

TEST_CASE("gzip trace decompresses to the events written", "[trace]") {
  const mxc::testing::TempDir tmp;
  const auto& dir = tmp.path();
  const std::string path = (dir / "t.json.gz").string();
  write_small(path);
  const std::string raw = test::read_bytes(path);
  REQUIRE(raw.size() > 2);
  CHECK(static_cast<unsigned char>(raw[0]) == 0x1f);  // gzip magic
  CHECK(static_cast<unsigned char>(raw[1]) == 0x8b);
  const std::string text = test::read_trace_text(path);
  CHECK(text.find("\"ts\":0.001500,\"dur\":2.000250") != std::string::npos);
  const json doc = json::parse(text);
  CHECK(doc["displayTimeUnit"] == "ns");
  const json& ev = doc["traceEvents"];
  REQUIRE(ev.size() == 7);  // 2 process + 2 thread metadata, X, i, C
  CHECK(ev[0]["ph"] == "M");
  CHECK(ev[0]["name"] == "process_name");
  CHECK(ev[0]["args"]["name"] == "chip0");
  CHECK(ev[1]["name"] == "process_sort_index");
  CHECK(ev[2]["name"] == "thread_name");
  CHECK(ev[2]["tid"] == 2);
  CHECK(ev[2]["args"]["name"] == "dma");
  const json& x = ev[4];
  CHECK(x["ph"] == "X");
  CHECK(x["name"] == "DMA_LOAD");
  CHECK(x["cat"] == "instr");
  CHECK(x["pid"] == 1);
  CHECK(x["tid"] == 2);
  CHECK(x["ts"].get<double>() == Approx(0.0015));
  CHECK(x["dur"].get<double>() == Approx(2.00025));
  CHECK(x["args"]["instr"] == "dma_load \"x\"");  // quotes escaped
  CHECK(ev[5]["ph"] == "i");
  CHECK(ev[5]["s"] == "t");
  CHECK_FALSE(ev[5].contains("args"));
  CHECK(ev[6]["ph"] == "C");
  CHECK(ev[6]["args"]["reads"] == 3);
  CHECK(text.find("\"ts\":4.000001") != std::string::npos);
}

TEST_CASE("the same trace twice is byte-identical, plain or gzip", "[trace]") {
  const mxc::testing::TempDir tmp;
  const auto& dir = tmp.path();
  for (const char* ext : {".json.gz", ".json"}) {
    const std::string a = (dir / (std::string("a") + ext)).string();
    const std::string b = (dir / (std::string("b") + ext)).string();
    write_small(a);
    write_small(b);
    const std::string ba = test::read_bytes(a);
    CHECK(ba == test::read_bytes(b));
    CHECK(ba.empty() == false);
  }
  // The plain file is the decompressed gzip file.
  CHECK(test::read_bytes((dir / "a.json").string()) == test::read_trace_text((dir / "a.json.gz").string()));
}

TEST_CASE("the destructor finishes the file", "[trace]") {
  const mxc::testing::TempDir tmp;
  const auto& dir = tmp.path();
  const std::string path = (dir / "d.json.gz").string();
  {
    TraceWriter t(path);
    t.thread(0, 0, "x", 0);
  }
  const json doc = json::parse(test::read_trace_text(path));
  CHECK(doc["traceEvents"].size() == 2);
}

TEST_CASE("an empty trace is valid JSON", "[trace]") {
  const mxc::testing::TempDir tmp;
  const auto& dir = tmp.path();
  const std::string path = (dir / "e.json").string();
  TraceWriter(path).close();
  CHECK(json::parse(test::read_bytes(path))["traceEvents"].empty());
}

TEST_CASE("trace errors name the file", "[trace]") {
  const std::string bad = "/nonexistent-dir-mxcosim/t.json.gz";
  CHECK_THROWS_WITH(TraceWriter(bad), Catch::Contains("cannot open trace file '" + bad + "'"));
  CHECK_THROWS_WITH(TraceWriter("/nonexistent-dir-mxcosim/t.json"), Catch::Contains("t.json"));
  const mxc::testing::TempDir tmp;
  const auto& dir = tmp.path();
  TraceWriter t((dir / "c.json").string());
  CHECK_THROWS_WITH(t.counter(0, "n", 0, json(3)), Catch::Contains("c.json"));
  t.close();
  CHECK_THROWS_WITH(t.instant(0, 0, "late", "x", 0), Catch::Contains("after close"));
}

TEST_CASE("a full disk is reported by close()", "[trace]") {
  REQUIRE(std::filesystem::exists("/dev/full"));
  TraceWriter t("/dev/full");
  t.process(0, "x");
  CHECK_THROWS_WITH(t.close(), Catch::Contains("cannot write trace file '/dev/full'"));
}
