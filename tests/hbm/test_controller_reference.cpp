// The model's controllers against a deliberately plain per-cycle reference
// (controller_reference.h) written from docs/hbm.md: random small configs
// (one or two channels of the HBM2 or HBM3 preset, the controller's
// policies drawn at random) and random requests offered at random times;
// both must accept the same requests, issue the same commands (cycle,
// command, bank, row, column) on every pseudo-channel and complete every
// request at the same time. The reference asks the independent timing checker whether a
// command is legal, so a command the model issues later than it could
// shows here, as does a choice among candidates other than the documented
// one. MXCOSIM_RANDOM_SEED (first seed) and MXCOSIM_RANDOM_SEEDS (how many)
// choose the seeds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/hbm/controller_reference.h"
#include "tests/hbm/hbm_test_util.h"

using namespace mxc;
using namespace mxc::hbm;

namespace {

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

/// What the random configs may use: everything by default; fewer to narrow down a difference.
struct Features {
  bool writes = true, closed_page = true, refresh = true, shared_buses = true;
};

/// One or two channels of the HBM2 or HBM3 preset, timings and policies drawn from `rng`.
MemoryConfig random_config(std::mt19937_64& rng, const Features& f) {
  // Mostly HBM2; HBM3 for its tPPD and shorter bursts.
  MemoryConfig cfg = test::preset(rng() % 4 ? "hbm2.yaml" : "hbm3.yaml");
  cfg.device.org.channels = f.shared_buses && rng() % 4 == 0 ? 2 : 1;
  const auto pick = [&](std::uint32_t lo, std::uint32_t hi) {
    return lo + static_cast<std::uint32_t>(rng() % (hi - lo + 1));
  };
  if (rng() % 2) {
    // Other spacings than the preset's, in JEDEC's relations (config_loader.h).
    HbmTiming& t = cfg.device.t;
    t.FAW = pick(t.FAW, 40);
    t.RRD_L = pick(t.RRD_S, t.RRD_S + 4);
    t.CCD_L = pick(t.CCD_S, t.CCD_S + 6);
    t.WTR_L = pick(t.WTR_S, t.WTR_S + 6);
    t.RTW = pick(t.CL + t.burst_cycles - t.CWL, t.CL + t.burst_cycles - t.CWL + 6);
    t.PPD = pick(0, 4);
  }
  cfg.fast_path = rng() % 4 != 0;
  cfg.every_cycle = rng() % 8 == 0;
  cfg.controller.frontend_cycles = pick(0, 2);
  cfg.controller.backend_cycles = pick(0, 2);
  ControllerConfig& c = cfg.controller;
  const std::uint32_t depths[] = {4, 8, 16, 32};
  c.read_queue = depths[rng() % 4];
  c.write_queue = depths[rng() % 4];
  c.write_high_watermark = pick(1, c.write_queue);
  c.write_low_watermark = pick(0, c.write_high_watermark - 1);
  c.starvation_cap = rng() % 4 ? pick(0, 8) : pick(16, 64);
  c.page_policy = f.closed_page && rng() % 2 ? PagePolicy::kClosed : PagePolicy::kOpen;
  c.dual_command = rng() % 4 != 0;
  c.shared_command_bus = f.shared_buses && rng() % 2;
  c.refresh = RefreshMode::kNone;
  c.refresh_postpone = 0;
  if (f.refresh) {
    const RefreshMode modes[] = {RefreshMode::kNone, RefreshMode::kAllBank, RefreshMode::kPerBank};
    c.refresh = modes[rng() % 3];
    if (c.refresh == RefreshMode::kAllBank) c.refresh_postpone = pick(0, kMaxRefreshPostpone);
    // Short refresh intervals, so that a short run meets many refreshes
    // (inside the loader's bounds: tRFC <= tREFI - 2 tRC, tRFCsb <=
    // banks x tREFIsb - 2 tRC, tREFIsb > tRREFD + tRRD_S).
    HbmTiming& t = cfg.device.t;
    if (rng() % 2) {  // shorter refreshes, and so shorter intervals still
      t.RFC = pick(t.RC, t.RFC);
      t.RFCsb = pick(t.RC, t.RFCsb);
    }
    const std::uint32_t banks = cfg.device.org.banks(), rcd = std::max(t.RCDRD, t.RCDWR);
    t.REFI = rng() % 4 ? pick(t.RFC + 2 * t.RC + rcd, 2000) : t.RFC + 2 * t.RC + rcd;
    t.REFIsb = std::max({t.REFI / banks, (t.RFCsb + 2 * t.RC + rcd) / banks + 1, t.RREFD + t.RRD_S + 1});
    t.REFI = std::max(t.REFI, t.REFIsb * banks);
  }
  return cfg;
}

std::string describe(const MemoryConfig& cfg) {
  const ControllerConfig& c = cfg.controller;
  std::ostringstream s;
  s << cfg.device.name
    << (cfg.every_cycle ? " (stepping every cycle)"
        : cfg.fast_path ? ""
                        : " (no shortcuts)")
    << ", frontend " << c.frontend_cycles << ", backend " << c.backend_cycles << ", tFAW " << cfg.device.t.FAW
    << " tRRD_L " << cfg.device.t.RRD_L << " tCCD_L " << cfg.device.t.CCD_L << " tWTR_L " << cfg.device.t.WTR_L
    << " tRTW " << cfg.device.t.RTW << " tPPD " << cfg.device.t.PPD << ", queues " << c.read_queue << "/"
    << c.write_queue << ", watermarks " << c.write_high_watermark << "/" << c.write_low_watermark << ", starvation cap "
    << c.starvation_cap << ", page " << (c.page_policy == PagePolicy::kClosed ? "closed" : "open") << ", refresh "
    << to_string(c.refresh) << " postponing " << c.refresh_postpone << " (tREFI " << cfg.device.t.REFI << ", tREFIsb "
    << cfg.device.t.REFIsb << "), dual command " << c.dual_command << ", shared buses " << c.shared_command_bus;
  return s.str();
}

std::string show(const DramCommand& c) {
  std::ostringstream s;
  s << "cycle " << c.cycle << " " << cmd_name(c.cmd) << " bank " << c.bank << " row " << c.row << " col " << c.col;
  return s.str();
}

bool same(const DramCommand& a, const DramCommand& b) {
  return a.cycle == b.cycle && a.cmd == b.cmd && a.bank == b.bank && a.row == b.row && a.col == b.col;
}

/// The first difference between the two command streams of pseudo-channel
/// `pc`, with the commands before it; empty when they agree.
std::string first_difference(std::uint32_t pc, const std::vector<DramCommand>& model,
                             const std::vector<DramCommand>& ref) {
  std::size_t i = 0;
  while (i < model.size() && i < ref.size() && same(model[i], ref[i])) ++i;
  if (i == model.size() && i == ref.size()) return "";
  std::ostringstream s;
  s << "pc " << pc << ": command " << i << " differs (model " << model.size() << " commands, reference " << ref.size()
    << ")\n";
  for (std::size_t k = i > 6 ? i - 6 : 0; k < i; ++k) s << "  both:      " << show(model[k]) << "\n";
  for (std::size_t k = i; k < i + 3; ++k) {
    s << "  model:     " << (k < model.size() ? show(model[k]) : "-") << "\n";
    s << "  reference: " << (k < ref.size() ? show(ref[k]) : "-") << "\n";
  }
  return s.str();
}

/// What the seeds compared, summed (so that a run that compares nothing fails).
struct Totals {
  std::uint64_t commands = 0, requests = 0;
  std::uint64_t by_cmd[kNumCmds] = {};
};

/// Runs one seed; returns what differs (empty when nothing).
std::string run_seed(std::uint64_t seed, const Features& f, Totals& totals) {
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + 7);
  const MemoryConfig cfg = random_config(rng, f);
  HbmModel m("hbm", cfg);
  const std::uint32_t pcs = m.num_pcs();
  test::ControllerReference ref(cfg, pcs);
  std::vector<std::vector<DramCommand>> commands(pcs);
  m.set_command_observer([&](std::uint32_t pc, const DramCommand& c) { commands[pc].push_back(c); });
  std::map<std::uint64_t, Time> done;
  m.set_completion([&](const MemResponse& r) { done[r.id] = r.complete; });

  const Time tck = cfg.device.t.tCK_ps;
  // Addresses over a few rows of every bank: hits, misses and conflicts.
  const std::uint32_t row_bits = 1 + static_cast<std::uint32_t>(rng() % 3);
  const std::uint64_t span = m.capacity_bytes() / cfg.device.org.rows << row_bits;  // rows are the top field
  const double write_share = f.writes ? static_cast<double>(rng() % 5) / 4 : 0.0;
  const std::uint32_t requests = 40 + static_cast<std::uint32_t>(rng() % 160);
  const std::uint32_t one_pc = rng() % 3 == 0 ? static_cast<std::uint32_t>(rng() % pcs) : pcs;  // all when pcs
  std::ostringstream why;
  why << "seed " << seed << ": " << describe(cfg) << "\n";
  Time t = 0;
  std::vector<BurstTarget> bursts;
  for (std::uint32_t i = 0; i < requests; ++i) {
    const std::uint64_t gap = rng() % 2 ? 0 : rng() % 8 ? rng() % 16 : rng() % 3000;
    t += gap * tck + (rng() % 4 == 0 ? rng() % tck : 0);
    MemRequest req;
    req.id = i;
    // Up to a few bursts, sometimes more (over both pseudo-channels), within
    // the shorter queue; a few when all go to one pseudo-channel.
    const std::uint32_t most =
        std::min({cfg.controller.read_queue, cfg.controller.write_queue, rng() % 4 || one_pc != pcs ? 4u : 16u});
    req.bytes = 32 * static_cast<std::uint32_t>(1 + rng() % most);
    for (;;) {
      req.addr = (rng() % span) & ~std::uint64_t{31};
      m.split(req.addr, req.bytes, bursts);
      if (one_pc == pcs ||
          std::all_of(bursts.begin(), bursts.end(), [&](const BurstTarget& b) { return b.pc == one_pc; }))
        break;
    }
    req.write = std::uniform_real_distribution<double>(0, 1)(rng) < write_share;
    if (req.write) req.data.assign(req.bytes, 0x5a);
    for (;;) {
      req.issue = t;
      const std::uint64_t floor = t / tck, cycle = (t + tck - 1) / tck;
      ref.run_until(floor);
      std::map<std::uint32_t, std::uint32_t> per_pc;
      for (const BurstTarget& b : bursts) ++per_pc[b.pc];
      bool room = true;
      for (const auto& [pc, n] : per_pc) room &= ref.can_accept(pc, req.write, n);
      const bool taken = m.send(req, t);
      if (taken != room) {
        why << "request " << i << " at cycle " << cycle << ": the model " << (taken ? "accepted" : "refused")
            << " it, the reference " << (room ? "has room" : "has none") << "\n";
        return why.str();
      }
      if (taken) {
        ref.accept(i, bursts, req.write, cycle);
        break;
      }
      t += tck * (1 + rng() % 8);
    }
  }
  // Both to the end of the last request, then idle a while (refresh goes on).
  while (m.outstanding() != 0) {
    const Time next = m.next_event_time();
    if (next == kNever) {
      why << "model idle with " << m.outstanding() << " requests outstanding\n";
      return why.str();
    }
    t = std::max(t, next);
    m.advance_to(t);
  }
  t += (rng() % 3000) * tck;
  m.finish(t);
  ref.run_until(t / tck);

  std::string diff;
  for (std::uint32_t pc = 0; pc < pcs && diff.empty(); ++pc)
    diff = first_difference(pc, commands[pc], ref.commands(pc));
  if (!diff.empty()) return why.str() + diff;
  if (ref.checker().violation_count() != 0) return why.str() + "reference: " + ref.checker().violations().front();
  for (std::uint32_t pc = 0; pc < pcs; ++pc) {
    totals.commands += commands[pc].size();
    for (const DramCommand& c : commands[pc]) ++totals.by_cmd[static_cast<int>(c.cmd)];
  }
  totals.requests += requests;
  for (std::uint32_t i = 0; i < requests; ++i) {
    const auto r = ref.completions().find(i);
    const Time want = r == ref.completions().end() ? kNever : m.clock().edge(r->second);
    const auto got = done.find(i);
    if (got == done.end() || got->second != want) {
      why << "request " << i << " completes at " << (got == done.end() ? kNever : got->second) << " ps in the model, "
          << want << " ps in the reference\n";
      return why.str();
    }
  }
  return "";
}

/// Runs `count` seeds from `first`; names every failing one and shows the first.
void run_seeds(const Features& f, std::uint64_t default_count) {
  const std::uint64_t first = env_or("MXCOSIM_RANDOM_SEED", 1);
  const std::uint64_t count = env_or("MXCOSIM_RANDOM_SEEDS", default_count);
  std::vector<std::uint64_t> failing;
  std::string shown;
  Totals totals;
  for (std::uint64_t s = first; s < first + count; ++s) {
    std::string d = run_seed(s, f, totals);
    if (d.empty()) continue;
    failing.push_back(s);
    if (shown.empty()) shown = std::move(d);
  }
  std::ostringstream names;
  for (const std::uint64_t s : failing) names << " " << s;
  INFO(failing.size() << " of " << count << " seeds differ:" << names.str() << "\nfirst (rerun with "
                      << "MXCOSIM_RANDOM_SEED=" << (failing.empty() ? 0 : failing.front())
                      << " MXCOSIM_RANDOM_SEEDS=1):\n"
                      << shown);
  CHECK(failing.empty());
  std::ostringstream kinds;
  for (int c = 0; c < kNumCmds; ++c) kinds << " " << cmd_name(static_cast<Cmd>(c)) << " " << totals.by_cmd[c];
  INFO(totals.commands << " commands (" << kinds.str() << ") and " << totals.requests << " requests compared");
  CHECK(totals.commands > 10 * count);
}

}  // namespace

TEST_CASE("the controllers issue what a plain per-cycle reference issues", "[hbm-reference]") {
  run_seeds(Features{}, 2000);
}
