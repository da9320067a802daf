// ReplayMemory must answer every call exactly as a memory of its own would:
// from the recorded log while the calls agree, and from a real memory brought
// to the logged state once they differ, wherever that happens.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cosim/memory_replay.h"
#include "models/core/ideal_memory.h"
#include "models/hbm/config_loader.h"
#include "models/hbm/hbm_model.h"

using namespace mxc;

namespace {

struct Answer {
  bool send = false;  ///< a send() (else an advance_to())
  bool accepted = false;
  Time now = 0;
  Time next_event = kNever;
  std::vector<std::tuple<std::uint64_t, Time, Time>> completions;  // id, accept, complete
  bool operator==(const Answer&) const = default;
};

// Drives `mem` as a kernel and a requester would: a seeded stream of reads and writes, offered
// one per `gap_ps` (a refused one again later), the memory advanced to each of its events.
// From request `change_at` on, the stream takes other addresses (a shadow that diverges).
std::vector<Answer> drive(MemoryTarget& mem, std::uint32_t change_at, std::uint32_t count = 300, Time gap_ps = 700) {
  std::vector<Answer> out;
  std::vector<std::tuple<std::uint64_t, Time, Time>> done;
  mem.set_completion([&](const MemResponse& r) { done.emplace_back(r.id, r.accept, r.complete); });
  std::mt19937_64 rng(5);
  const auto make = [&](std::uint32_t id) {
    const std::uint64_t addr = (rng() % 2048) * 64 + (id >= change_at ? 0x100000 : 0);
    const std::uint32_t bytes = 32u << (rng() % 3);
    MemRequest r = rng() % 3 == 0 ? MemRequest::make_write(id, addr, std::vector<std::uint8_t>(bytes, 1))
                                  : MemRequest::make_read(id, addr, bytes);
    r.issue = static_cast<Time>(id) * gap_ps;
    return r;
  };
  std::uint32_t sent = 0;
  Time now = 0;
  MemRequest next = make(0);
  while (sent < count || mem.next_event_time() != kNever) {
    const Time t = mem.next_event_time();
    Answer a;
    if (sent < count && now < t) {
      a.send = true;
      a.now = now;
      a.accepted = mem.send(next, now);
      if (a.accepted) next = make(++sent);
      now += gap_ps;
    } else {
      a.now = t;
      mem.advance_to(t);
    }
    a.next_event = mem.next_event_time();
    a.completions.swap(done);
    out.push_back(std::move(a));
  }
  mem.set_completion(nullptr);
  return out;
}

using Factory = std::unique_ptr<MemoryTarget> (*)();

std::unique_ptr<MemoryTarget> make_hbm() {
  static const hbm::MemoryConfig cfg =
      hbm::load_memory_config(std::string(MXCOSIM_SOURCE_DIR) + "/configs/hbm/hbm2.yaml");
  auto m = std::make_unique<hbm::HbmModel>("hbm", cfg);
  m->set_timing_only(true);
  return m;
}

std::unique_ptr<MemoryTarget> make_ideal() {
  auto m = std::make_unique<IdealMemory>("mem", 9000, 8);
  m->set_timing_only(true);
  return m;
}

// A latency beyond the 2^32 ps a logged call holds to the memory's next event.
std::unique_ptr<MemoryTarget> make_slow_ideal() {
  auto m = std::make_unique<IdealMemory>("mem", 5'000'000'000ull, 8);
  m->set_timing_only(true);
  return m;
}

// The design's memory sees `design_requests` of the stream; the shadow's, `shadow_requests`,
// changed from request `change_at` on. The replay must answer as the shadow's own memory does.
// Returns whether it diverged.
bool check_replay(Factory make, std::uint32_t design_requests, std::uint32_t shadow_requests,
                               std::uint32_t change_at) {
  RecordingMemory design(make());
  const std::vector<Answer> recorded = drive(design, ~0u, design_requests);
  REQUIRE(recorded.size() > design_requests);  // a send per request at least
  auto own = make();
  const std::vector<Answer> expected = drive(*own, change_at, shadow_requests);
  ReplayMemory replay(design.log(), make());
  CHECK(drive(replay, change_at, shadow_requests) == expected);
  if (!replay.diverged()) CHECK(replay.replayed_calls() == recorded.size());
  return replay.diverged();
}

using Logged = std::tuple<std::uint64_t, std::uint32_t, std::uint64_t, std::uint32_t, bool, Time, Time, Time>;

std::vector<Logged> entries(const MemoryLog& log) {
  std::vector<Logged> out;
  for (const MemoryLogEntry& e : log) out.emplace_back(e.id, e.source, e.addr, e.bytes, e.write, e.issue, e.accept, e.complete);
  return out;
}

// A monitor above a replayed memory logs nothing while the replay holds and catches up from the
// call log where it stops or at the end (cosim/chip_set.cpp). Its log must be the one a monitor
// above the shadow's own memory keeps; and where the shadow replayed every call, the log of the
// design's monitor stands for it.
void check_monitor_catch_up(Factory make, std::uint32_t design_requests, std::uint32_t shadow_requests,
                            std::uint32_t change_at) {
  RecordingMemory design(make());
  MemoryMonitor design_monitor(design);
  drive(design_monitor, ~0u, design_requests);
  auto own = make();
  MemoryMonitor own_monitor(*own);
  drive(own_monitor, change_at, shadow_requests);
  const std::vector<Logged> expected = entries(own_monitor.log());

  ReplayMemory replay(design.log(), make());
  MemoryMonitor monitor(replay);
  const auto catch_up = [&](std::uint64_t calls) {
    log_replayed_calls(design.log(), calls, [&](std::uint32_t) -> MemoryMonitor& { return monitor; });
    monitor.resume_logging();
  };
  monitor.pause_logging();
  replay.set_on_diverge(catch_up);
  drive(monitor, change_at, shadow_requests);
  const bool stands_in = !replay.diverged() && !design.log().truncated() &&
                         replay.replayed_calls() == design.log().published_calls();
  if (!replay.diverged()) catch_up(replay.replayed_calls());
  CHECK(entries(monitor.log()) == expected);
  if (stands_in) CHECK(entries(design_monitor.log()) == expected);
}

}  // namespace

TEST_CASE("a monitor above a replayed memory keeps the log of one above the shadow's own memory") {
  for (const Factory make : {&make_hbm, &make_ideal})
    for (const std::uint32_t change_at : {0u, 1u, 40u, 150u, 299u, ~0u}) {
      INFO("diverging at request " << change_at);
      check_monitor_catch_up(make, 300, 300, change_at);
    }
  check_monitor_catch_up(&make_hbm, 200, 120, ~0u);  // stops short of the design's calls
  check_monitor_catch_up(&make_ideal, 50, 80, ~0u);  // outruns the log
}

TEST_CASE("a replayed memory answers as its own memory would, wherever the calls diverge") {
  for (const Factory make : {&make_hbm, &make_ideal})
    for (const std::uint32_t change_at : {0u, 1u, 40u, 150u, 299u, ~0u}) {
      INFO("diverging at request " << change_at);
      CHECK(check_replay(make, 300, 300, change_at) == (change_at != ~0u));
    }
}

TEST_CASE("a replay diverges where the design made a call the shadow does not make") {
  // The shadow stops offering after 120 requests: the design's 121st send is not made, and the
  // completions after it must come from a memory that never saw it.
  CHECK(check_replay(&make_hbm, 200, 120, ~0u));
}

TEST_CASE("a replay that outruns the log diverges") {
  // The design stopped (its run ended) before the shadow: calls past the log's end are the real
  // memory's.
  CHECK(check_replay(&make_ideal, 50, 80, ~0u));
}

TEST_CASE("a call whose next event the log cannot hold ends the log, and the replay diverges there") {
  CHECK(check_replay(&make_slow_ideal, 20, 20, ~0u));
  check_monitor_catch_up(&make_slow_ideal, 20, 20, ~0u);
}

TEST_CASE("a replay diverges at a write whose byte mask is not the recorded one, and logs masks as recorded") {
  // The shadow's monitors stand paused while its memory replays the design's calls, so a
  // replayed write stands for the model's own: one that enables other bytes must not.
  auto recorder = std::make_unique<RecordingMemory>(std::make_unique<IdealMemory>("mem", 1000, 8));
  MemRequest w = MemRequest::make_write(1, 0x100, std::vector<std::uint8_t>(32, 7));
  w.byte_enable.assign(32, false);
  std::fill_n(w.byte_enable.begin(), 16, true);
  REQUIRE(recorder->send(w, 10));
  const MemoryCallLog& log = recorder->log();
  REQUIRE(log.request(0).byte_mask == byte_mask_digest(w.byte_enable));
  CHECK(MemoryCallLog::same_request(log.request(0), w));
  MemRequest all = w;
  all.byte_enable.clear();  // every strobe high
  CHECK_FALSE(MemoryCallLog::same_request(log.request(0), all));
  ReplayMemory replay(log, std::make_unique<IdealMemory>("mem", 1000, 8));
  CHECK(replay.send(all, 10));
  CHECK(replay.diverged());
  // The monitors catching up log the recorded mask.
  IdealMemory inner("inner", 1000, 8);
  MemoryMonitor mon(inner);
  log_replayed_calls(log, log.published_calls(), [&](std::uint32_t) -> MemoryMonitor& { return mon; });
  REQUIRE(mon.log().size() == 1);
  CHECK(mon.log()[0].byte_mask == byte_mask_digest(w.byte_enable));
}
