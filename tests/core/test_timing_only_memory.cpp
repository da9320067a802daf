// A timing-only memory (MemoryTarget::set_timing_only) must complete every
// request exactly when the same memory with data does, and carry no data.
#include <catch2/catch.hpp>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "models/core/ideal_memory.h"
#include "models/hbm/config_loader.h"
#include "models/hbm/hbm_model.h"

using namespace mxc;

namespace {

// Offers a seeded stream of reads and masked writes (one per `gap_ps` while the
// memory accepts) and returns every completion in delivery order.
std::vector<MemResponse> drive(MemoryTarget& mem, std::uint32_t seed, Time gap_ps) {
  std::vector<MemResponse> done;
  mem.set_completion([&](const MemResponse& r) { done.push_back(r); });
  std::mt19937_64 rng(seed);
  const std::uint32_t count = 400;
  std::uint32_t sent = 0;
  Time now = 0;
  MemRequest next;
  const auto make = [&](std::uint32_t id) {
    const std::uint64_t addr = (rng() % 4096) * 64;
    const std::uint32_t bytes = 32u << (rng() % 3);
    if (rng() % 2 == 0) return MemRequest::make_read(id, addr, bytes);
    std::vector<std::uint8_t> data(bytes);
    for (auto& b : data) b = static_cast<std::uint8_t>(rng());
    MemRequest w = MemRequest::make_write(id, addr, std::move(data));
    w.byte_enable.assign(bytes, true);
    w.byte_enable[rng() % bytes] = false;
    return w;
  };
  next = make(0);
  while (sent < count || mem.next_event_time() != kNever) {
    const Time t = mem.next_event_time();
    if (sent < count && now <= t) {
      mem.advance_to(now);
      if (mem.send(next, now)) {
        next = make(++sent);
      }
      now += gap_ps;
      continue;
    }
    mem.advance_to(t);
  }
  return done;
}

void require_same_timing(const std::vector<MemResponse>& with_data, const std::vector<MemResponse>& timing) {
  REQUIRE(with_data.size() == timing.size());
  std::size_t reads_with_data = 0;
  for (std::size_t i = 0; i < timing.size(); ++i) {
    CHECK(timing[i].id == with_data[i].id);
    CHECK(timing[i].accept == with_data[i].accept);
    CHECK(timing[i].complete == with_data[i].complete);
    CHECK(timing[i].data.empty());
    if (!with_data[i].write && with_data[i].data.size() == with_data[i].bytes) ++reads_with_data;
  }
  CHECK(reads_with_data > 100);  // the reference memory did return data
}

}  // namespace

TEST_CASE("a timing-only ideal memory completes each request when the memory with data does") {
  IdealMemory data("mem", 7000, 16), timing("mem", 7000, 16);
  timing.set_timing_only(true);
  CHECK(timing.timing_only());
  require_same_timing(drive(data, 11, 1000), drive(timing, 11, 1000));
}

TEST_CASE("a timing-only HBM model completes each request when the model with data does") {
  const hbm::MemoryConfig cfg = hbm::load_memory_config(std::string(MXCOSIM_SOURCE_DIR) + "/configs/hbm/hbm2.yaml");
  hbm::HbmModel data("hbm", cfg), timing("hbm", cfg);
  timing.set_timing_only(true);
  require_same_timing(drive(data, 12, 500), drive(timing, 12, 500));
}

TEST_CASE("a timing-only memory keeps its back door") {
  IdealMemory mem("mem", 1000);
  mem.set_timing_only(true);
  const std::vector<std::uint8_t> image{9, 8, 7, 6};
  mem.backdoor_write(128, image);
  REQUIRE(mem.send(MemRequest::make_write(1, 128, {1, 1, 1, 1}), 0));  // not stored
  std::vector<std::uint8_t> got(4);
  mem.backdoor_read(128, got);
  CHECK(got == image);
}
