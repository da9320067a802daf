#include "models/hbm/closed_loop.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <stdexcept>

namespace mxc::hbm {

LoopResult run_closed_loop(HbmModel& model, RequestSource& source, std::uint32_t outstanding,
                           const ProgressReport& progress) {
  if (outstanding == 0) throw std::invalid_argument("outstanding must be > 0");
  const auto wall0 = std::chrono::steady_clock::now();
  const std::clock_t cpu0 = std::clock();
  LoopResult res;
  res.outstanding = outstanding;
  std::uint64_t in_flight = 0;
  Time last = 0;
  SourceItem item;
  bool have = false, ended = false;
  ProgressTicker<kProgressStride> ticker(progress);
  model.set_completion([&](const MemResponse& r) {
    --in_flight;
    ++res.requests;
    last = std::max(last, r.complete);
    source.on_complete(r);
    // A stop ends the source here: a request it made and the model has not
    // taken yet is dropped, never offered; those in flight run to completion.
    if (ticker.tick(last) && !ended) [[unlikely]] {
      ended = true;
      have = false;
      res.stopped = true;
    }
  });

  Time now = 0;
  MemRequest req;
  std::uint64_t id = 0;
  std::uint64_t refused_at = ~std::uint64_t{0};  // refusal_stamp() when last refused
  Time refused_since = kNever;  // when the request now waiting for room was first refused
  for (;;) {
    // Offer as many requests as the window and the model take now.
    bool blocked = false;  // the next request waits for room in a queue
    bool waiting = false;  // the source waits for a completion
    while (in_flight < outstanding && !ended) {
      if (!have) {
        const auto n = source.next(item);
        if (n == RequestSource::Next::kEnd) {
          ended = true;
          break;
        }
        if (n == RequestSource::Next::kWait) {
          waiting = true;
          break;
        }
        have = true;
        make_request(item, id++, now, req);
      }
      if (req.issue > now) break;
      blocked = refused_at == model.refusal_stamp();  // no room has appeared where it lacked
      if (blocked) break;
      bool sent;
      try {
        sent = model.send(req, now);
      } catch (const std::invalid_argument& e) {  // a request no queue can take: say where it came from
        const std::string where = source.where();
        if (where.empty()) throw;
        throw std::invalid_argument(where + ": " + e.what());
      }
      if (!sent) {
        refused_at = model.refusal_stamp();
        refused_since = std::min(refused_since, now);
        blocked = true;
        break;
      }
      if (refused_since != kNever) res.queue_full_ps += now - refused_since, refused_since = kNever;
      refused_at = ~std::uint64_t{0};
      have = false;
      ++in_flight;
    }
    // The model skips ahead to the first time the loop can act at: a
    // blocked request can only be let in by room in the queue that lacked
    // it (completions delivered meanwhile cannot let it in), and a full
    // window or a waiting source only by a completion. The events before
    // run all the same, in one advance (controllers do not interact).
    if (blocked) {
      now = std::max(now, model.advance_until_room());
      continue;
    }
    const Time t_model = in_flight >= outstanding || waiting ? model.earliest_completion() : model.next_event_time();
    const Time t_source = (have && in_flight < outstanding && req.issue > now) ? req.issue : kNever;
    const Time t = std::min(t_model, t_source);
    if (t == kNever) {
      if (in_flight || have || !ended)
        throw std::logic_error("closed loop stalled with " + std::to_string(in_flight) + " requests in flight");
      break;
    }
    if (!ended && in_flight < outstanding && (waiting || t_source != kNever))
      res.source_idle_ps += t - std::min(t, now);
    now = std::max(now, t);
    if (t_model <= now) model.advance_to(now);
  }
  model.finish(last);
  res.sim_time_ps = last;
  res.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  res.cpu_seconds = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  return res;
}

}  // namespace mxc::hbm
