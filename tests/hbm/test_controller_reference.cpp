// The model's controllers against a deliberately plain per-cycle reference
// (controller_reference.h) written from docs/hbm.md: random small configs
// (one or two channels of the HBM2 or HBM3 preset, the controller's
// policies drawn at random) and random requests offered at random times;
// both must accept the same requests, issue the same commands (cycle,
// command, bank, row, column) on every pseudo-channel and complete every
// request at the same time, and count the same statistics (PcStats, per
// pseudo-channel and in total, and what the summary makes of them), the
// reference counting each as docs/hbm.md defines it. The reference asks
// the independent timing checker whether a command is legal, so a command
// the model issues later than it could shows here, as does a choice among
// candidates other than the documented one. The statistics are also held against a second model run as
// `mxcosim hbm` runs it (no observer, no checker), which may count idle
// refreshes at once instead of stepping through them. MXCOSIM_RANDOM_SEED
// (first seed) and MXCOSIM_RANDOM_SEEDS (how many) choose the seeds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "models/hbm/hbm_summary.h"
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
    // (inside the loader's bounds, w the longest a refresh may wait for its
    // banks to close and r the longer of tRC and tRCD: tRFC <= tREFI - w - r,
    // tRFCsb <= banks x tREFIsb - w - tRREFD - r, tREFIsb > tRREFD + tRRD_S
    // and >= tRREFD + w).
    HbmTiming& t = cfg.device.t;
    if (rng() % 2) {  // shorter refreshes, and so shorter intervals still
      t.RFC = pick(t.RC, t.RFC);
      t.RFCsb = pick(t.RC, t.RFCsb);
    }
    const std::uint32_t banks = cfg.device.org.banks(), rcd = std::max(t.RCDRD, t.RCDWR);
    const std::uint32_t wait = std::max(t.RC, t.CWL + t.burst_cycles + t.WR + t.RP) + t.ACT_cycles;
    const std::uint32_t between = wait + std::max(t.RC, rcd);  // the least time between refreshes
    t.REFI = rng() % 4 ? pick(t.RFC + between, 2000) : t.RFC + between;
    t.REFIsb = std::max(
        {t.REFI / banks, (t.RFCsb + between + t.RREFD) / banks + 1, t.RREFD + t.RRD_S + 1, t.RREFD + wait});
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

using RefStats = test::ControllerReference::Stats;

/// Where pseudo-channel `pc`'s statistics in `model` differ from the
/// reference's `ref`, one line each; empty when they agree.
std::string stats_difference(const std::string& run, const std::string& pc, const PcStats& model,
                             const RefStats& ref) {
  std::ostringstream s;
  const auto check = [&](const std::string& name, std::uint64_t got, std::uint64_t want) {
    if (got != want)
      s << run << ", " << pc << ": " << name << " " << got << " in the model, " << want << " in the reference\n";
  };
  check("read_bursts", model.read_bursts, ref.read_bursts);
  check("write_bursts", model.write_bursts, ref.write_bursts);
  check("row_hits", model.row_hits, ref.row_hits);
  check("row_misses", model.row_misses, ref.row_misses);
  check("row_conflicts", model.row_conflicts, ref.row_conflicts);
  check("acts", model.acts, ref.acts);
  check("pres", model.pres, ref.pres);
  check("refreshes", model.refreshes, ref.refreshes);
  check("refreshes_postponed", model.refreshes_postponed, ref.refreshes_postponed);
  check("refresh_bank_cycles", model.refresh_bank_cycles, ref.refresh_bank_cycles);
  check("read_queue_integral", model.read_queue_integral, ref.read_queue_integral);
  check("write_queue_integral", model.write_queue_integral, ref.write_queue_integral);
  // The idle time's causes share it out: together they are all of it.
  std::uint64_t idle = model.refresh_idle_cycles + model.miss_idle_cycles + model.conflict_idle_cycles;
  for (const std::uint64_t n : model.bus_idle_cycles) idle += n;
  check("data-bus idle cycles of all causes", idle, ref.bus_idle_cycles);
  check("bank_acts banks", model.bank_acts.size(), ref.bank_acts.size());
  for (std::size_t b = 0; b < std::min(model.bank_acts.size(), ref.bank_acts.size()); ++b)
    check("bank_acts[" + std::to_string(b) + "]", model.bank_acts[b], ref.bank_acts[b]);
  return s.str();
}

/// The reference's statistics summed over its pseudo-channels.
RefStats sum(const test::ControllerReference& ref, std::uint32_t pcs) {
  RefStats t = ref.stats(0);
  for (std::uint32_t pc = 1; pc < pcs; ++pc) {
    const RefStats& p = ref.stats(pc);
    for (auto [to, from] : {std::pair{&t.read_bursts, p.read_bursts}, {&t.write_bursts, p.write_bursts},
                            {&t.row_hits, p.row_hits}, {&t.row_misses, p.row_misses},
                            {&t.row_conflicts, p.row_conflicts}, {&t.acts, p.acts}, {&t.pres, p.pres},
                            {&t.refreshes, p.refreshes}, {&t.refreshes_postponed, p.refreshes_postponed},
                            {&t.refresh_bank_cycles, p.refresh_bank_cycles},
                            {&t.read_queue_integral, p.read_queue_integral},
                            {&t.write_queue_integral, p.write_queue_integral},
                            {&t.bus_idle_cycles, p.bus_idle_cycles}})
      *to += from;
    for (std::size_t b = 0; b < t.bank_acts.size(); ++b) t.bank_acts[b] += p.bank_acts[b];
  }
  return t;
}

/// What the summary of a run ending at `end` reports from the statistics,
/// against the figures docs/hbm.md defines, worked out from the
/// reference's counts; empty when they agree.
std::string summary_difference(const HbmModel& m, const test::ControllerReference& ref, Time end) {
  const MemoryConfig& cfg = m.config();
  const std::uint32_t pcs = m.num_pcs();
  LoopResult run;
  run.requests = m.requests_done();
  run.sim_time_ps = end;
  const HbmSummary s = summarize(m, run);
  const RefStats t = sum(ref, pcs);
  std::uint64_t owed = 0;
  for (std::uint32_t pc = 0; pc < pcs; ++pc) owed += ref.owed(pc);
  std::ostringstream out;
  const auto check = [&](const std::string& name, double got, double want) {
    if (std::abs(got - want) > 1e-9 * std::max(1.0, std::abs(want)))
      out << "summary: " << name << " " << got << " in the model, " << want << " from the reference\n";
  };
  check("row_hits", s.row_hits, t.row_hits);
  check("row_misses", s.row_misses, t.row_misses);
  check("row_conflicts", s.row_conflicts, t.row_conflicts);
  check("activates", s.activates, t.acts);
  check("refreshes", s.refreshes, t.refreshes);
  check("refreshes_postponed", s.refreshes_postponed, t.refreshes_postponed);
  check("refreshes_owed_at_end", s.refreshes_owed, owed);
  check("bank_activates banks", s.bank_activates.size(), t.bank_acts.size());
  for (std::size_t b = 0; b < std::min(s.bank_activates.size(), t.bank_acts.size()); ++b)
    check("bank_activates[" + std::to_string(b) + "]", s.bank_activates[b], t.bank_acts[b]);
  // Per pseudo-channel, over the run's cycles: queue occupancy, the share
  // of bank-time refresh held, the data buses' busy share; and each data
  // bus's whole bursts over the run's time.
  const double cycles = static_cast<double>(end) / cfg.device.t.tCK_ps, ns = static_cast<double>(end) / 1000;
  check("avg_read_queue", s.avg_read_queue, t.read_queue_integral / cycles / pcs);
  check("avg_write_queue", s.avg_write_queue, t.write_queue_integral / cycles / pcs);
  check("refresh_fraction", s.refresh_fraction,
        std::min(1.0, t.refresh_bank_cycles / (cycles * pcs * cfg.device.org.banks())));
  const double bursts = static_cast<double>(t.read_bursts + t.write_bursts);
  check("bus_busy_fraction", s.bus_busy_fraction, std::min(1.0, bursts * cfg.device.t.burst_cycles / (cycles * pcs)));
  const double burst_bytes = cfg.device.org.burst_bytes();
  for (std::uint32_t pc = 0; pc < pcs; ++pc) {
    check("pseudo_channel_read_bandwidth_gbps[" + std::to_string(pc) + "]", s.pc_read_gbps.at(pc),
          ref.stats(pc).read_bursts * burst_bytes / ns);
    check("pseudo_channel_write_bandwidth_gbps[" + std::to_string(pc) + "]", s.pc_write_gbps.at(pc),
          ref.stats(pc).write_bursts * burst_bytes / ns);
  }
  return out.str();
}

/// What the seeds compared, summed (so that a run that compares nothing fails).
struct Totals {
  std::uint64_t commands = 0, requests = 0;
  std::uint64_t by_cmd[kNumCmds] = {};
  RefStats stats;  // the reference's statistics, all seeds
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
  // The same requests on a model run as `mxcosim hbm` runs it: no observer,
  // no checker, so idle refreshes may be counted at once.
  MemoryConfig plain_cfg = cfg;
  plain_cfg.check_timing = false;
  HbmModel plain("hbm", plain_cfg);

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
      if (plain.send(req, t) != taken) {
        why << "request " << i << ": the two models differ on taking it\n";
        return why.str();
      }
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
  for (Time tp = t; plain.outstanding() != 0 && plain.next_event_time() != kNever;) {
    tp = std::max(tp, plain.next_event_time());
    plain.advance_to(tp);
  }
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
  plain.finish(t);
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
  // The statistics, at the end of the run: every request done, refreshes
  // replayed up to the same cycle.
  for (std::uint32_t pc = 0; pc < pcs && diff.empty(); ++pc) {
    const std::string name = "pc " + std::to_string(pc);
    diff = stats_difference("stepping through refreshes", name, m.pc_stats(pc), ref.stats(pc)) +
           stats_difference("as mxcosim hbm runs", name, plain.pc_stats(pc), ref.stats(pc));
  }
  if (diff.empty())
    diff = stats_difference("as mxcosim hbm runs", "all", plain.total_stats(), sum(ref, pcs)) +
           summary_difference(plain, ref, t);
  if (!diff.empty()) return why.str() + diff;
  const RefStats all = sum(ref, pcs);
  for (auto [to, from] : {std::pair{&totals.stats.row_hits, all.row_hits}, {&totals.stats.row_misses, all.row_misses},
                          {&totals.stats.row_conflicts, all.row_conflicts}, {&totals.stats.refreshes, all.refreshes},
                          {&totals.stats.refreshes_postponed, all.refreshes_postponed},
                          {&totals.stats.refresh_bank_cycles, all.refresh_bank_cycles},
                          {&totals.stats.read_queue_integral, all.read_queue_integral},
                          {&totals.stats.write_queue_integral, all.write_queue_integral}})
    *to += from;
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
  // Every statistic compared was met: each kind of burst, refreshes
  // postponed and not, both queues waited in.
  const RefStats& st = totals.stats;
  INFO("row hits / misses / conflicts " << st.row_hits << " / " << st.row_misses << " / " << st.row_conflicts
                                        << ", refreshes " << st.refreshes << " (" << st.refreshes_postponed
                                        << " postponed, " << st.refresh_bank_cycles << " bank-cycles), queues "
                                        << st.read_queue_integral << " / " << st.write_queue_integral);
  CHECK(std::min({st.row_hits, st.row_misses, st.row_conflicts, st.refreshes, st.read_queue_integral}) > count);
  CHECK(std::min({st.refreshes_postponed, st.refresh_bank_cycles, st.write_queue_integral}) > 0);
}

}  // namespace

TEST_CASE("the controllers issue what a plain per-cycle reference issues", "[hbm-reference]") {
  run_seeds(Features{}, 2000);
}
