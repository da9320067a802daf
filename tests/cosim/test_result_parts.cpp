// merge_parts: a split run's results from each process's part. Another client's part comes by
// way of the server as that client sent it: one that does not add up is an error naming what,
// never a read past the programs (a chip out of range had crashed the other client).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cosim/result_parts.h"

using namespace mxc;
using json = nlohmann::json;

namespace {

/// The part of one chip with one tile that ran `cycles`, no findings.
json chip_part(std::uint32_t chip, std::uint64_t cycles) {
  const json none = {{"count", 0}, {"list", json::array()}};
  json tile = {{"name", "chip" + std::to_string(chip) + ".tile0"}, {"kind", "rtl"}, {"cycles", cycles},
               {"model_cycles", cycles}, {"perf", json::array({json::array({"array_active", cycles / 2})})}};
  json c = {{"chip", chip}, {"hardware_error", ""}, {"read", 64}, {"written", 32}, {"hbm_beyond_capacity", 0},
            {"tiles", json::array({tile})}, {"hang", none}, {"hbm", none},
            {"handshake", {{"checked", 5}, {"count", 0}, {"list", json::array()}}},
            {"data", {{"checked", 16}, {"memory_bytes", 0}, {"count", 0}, {"list", json::array()}}}};
  return {{"ici_bytes", 8}, {"error", ""}, {"error_mismatches", json::array()}, {"chips", json::array({c})}};
}

struct TwoChips {
  SystemConfig cfg;
  Workload work;
  TwoChips() {
    cfg.chips = 2;
    work.programs.assign(2, std::vector<Program>(1, Program(3)));  // one tile of 3 instructions a chip
  }
  std::string error_of(const std::vector<json>& parts) const {
    SystemRunResult r;
    try {
      merge_parts(parts, cfg, work, false, r);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no error";
  }
};

}  // namespace

TEST_CASE("result parts: two chips' parts add up to the run's totals") {
  const TwoChips t;
  SystemRunResult r;
  merge_parts({chip_part(1, 300), chip_part(0, 200)}, t.cfg, t.work, false, r);
  CHECK(r.passed);
  CHECK(r.rtl_cycles == 300);
  CHECK(r.ici_bytes == 16);
  CHECK(r.hbm_read_bytes == 128);
  CHECK(r.elements_checked == 32);
  REQUIRE(r.tiles.size() == 2);
  CHECK(r.tiles[0].name == "chip0.tile0");  // chip order, whichever part came first
  CHECK(r.tiles[1].instructions == 3);
  CHECK(r.utilization == Approx(250.0 / 500.0));
}

TEST_CASE("result parts: a part that does not add up is an error naming what, not a crash") {
  const TwoChips t;
  const std::string head = "the run's results in parts do not add up (2 parts; another client's comes by way of the "
                           "server): ";
  CHECK(t.error_of({chip_part(0, 1), chip_part(100000000, 1)}) ==
        head + "a part for chip 100000000 of a system of 2 chips");
  CHECK(t.error_of({chip_part(0, 1), chip_part(0, 1)}) == head + "chip 0 in two parts");
  json fifty = chip_part(1, 1);
  for (int i = 0; i < 49; ++i) fifty["chips"][0]["tiles"].push_back(fifty["chips"][0]["tiles"][0]);
  CHECK(t.error_of({chip_part(0, 1), fifty}) == head + "chip 1 with 50 tiles, not 1");
  // A field missing or of another type: the JSON library's words (reading a missing key of a
  // const object had been undefined behaviour).
  json no_hang = chip_part(1, 1);
  no_hang["chips"][0].erase("hang");
  CHECK_THAT(t.error_of({chip_part(0, 1), no_hang}), Catch::StartsWith(head) && Catch::Contains("'hang' not found"));
  json text_cycles = chip_part(1, 1);
  text_cycles["chips"][0]["tiles"][0]["cycles"] = "many";
  CHECK_THAT(t.error_of({chip_part(0, 1), text_cycles}), Catch::StartsWith(head) && Catch::Contains("number"));
  CHECK_THAT(t.error_of({chip_part(0, 1), json::object()}), Catch::StartsWith(head));
  // A part that is not JSON at all, as the server relayed it.
  CHECK_THROWS_WITH(parse_part("{\"chips\": ["), "the run's results in parts do not add up: a part (another "
                                                 "client's, by way of the server) is not JSON");
  CHECK(parse_part(chip_part(1, 7).dump()) == chip_part(1, 7));
}
