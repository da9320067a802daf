#include "models/hbm/hbm_summary.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace mxc::hbm {

namespace {

std::string two_decimals(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}
/// Saturated pseudo-channels the binding constraint names by number.
constexpr std::uint32_t kNamedPcs = 8;
/// The data-bus idle cause "no burst queued" (also compared with below).
constexpr const char* kNoBurst = "no burst waiting";
}  // namespace

HbmSummary summarize(const HbmModel& model, const LoopResult& run) {
  const MemoryConfig& cfg = model.config();
  const HbmTiming& t = cfg.device.t;
  HbmSummary s;
  s.device = cfg.device.name;
  s.stacks = cfg.stacks;
  s.pseudo_channels = model.num_pcs();
  s.peak_bandwidth_gbps = cfg.device.peak_gbps() * cfg.stacks;
  const double ns = static_cast<double>(run.sim_time_ps) / 1000.0;
  s.sim_time_ns = ns;
  s.wall_seconds = run.wall_seconds;
  s.cpu_seconds = run.cpu_seconds;
  s.requests = model.requests_done();
  s.reads = model.reads();
  s.writes = model.writes();
  s.capacity_bytes = model.capacity_bytes();
  s.requests_beyond_capacity = model.requests_beyond_capacity();
  s.requests_per_second = run.wall_seconds > 0 ? s.requests / run.wall_seconds : 0;
  if (ns > 0) {
    s.read_bandwidth_gbps = static_cast<double>(model.bytes_read()) / ns;
    s.write_bandwidth_gbps = static_cast<double>(model.bytes_written()) / ns;
  }
  const LatencyHistogram& h = model.latency();
  s.avg_latency_ns = h.mean_ns();
  s.p50_latency_ns = h.percentile_ns(50);
  s.p99_latency_ns = h.percentile_ns(99);
  s.max_latency_ns = h.max_ns();
  s.outstanding = run.outstanding;
  if (run.sim_time_ps > 0) {
    s.avg_in_flight = static_cast<double>(h.sum_ps()) / static_cast<double>(run.sim_time_ps);
    s.queue_full_fraction = static_cast<double>(run.queue_full_ps) / static_cast<double>(run.sim_time_ps);
    s.source_idle_fraction =
        std::min(1.0, static_cast<double>(run.source_idle_ps) / static_cast<double>(run.sim_time_ps));
  }

  const PcStats tot = model.total_stats();
  s.controller_steps = tot.steps;
  s.row_hits = tot.row_hits;
  s.row_misses = tot.row_misses;
  s.row_conflicts = tot.row_conflicts;
  s.activates = tot.acts;
  s.refreshes = tot.refreshes;
  s.refreshes_postponed = tot.refreshes_postponed;
  s.refreshes_owed = model.refreshes_owed();
  const double cycles = ns * 1000.0 / static_cast<double>(t.tCK_ps);
  const double bank_time = cycles * cfg.device.org.banks() * s.pseudo_channels;
  if (bank_time > 0) s.refresh_fraction = std::min(1.0, static_cast<double>(tot.refresh_bank_cycles) / bank_time);
  if (cycles > 0) {
    s.avg_read_queue = static_cast<double>(tot.read_queue_integral) / cycles / s.pseudo_channels;
    s.avg_write_queue = static_cast<double>(tot.write_queue_integral) / cycles / s.pseudo_channels;
  }
  // Activates per cycle per pseudo-channel are bounded by tRRD_S, by four
  // per tFAW, by every bank cycling once per tRC and by the bus their
  // commands take: each ACT holds it ACT_cycles, each PRE one (as many per
  // ACT as the run issued); with one command bus (no dual command) the
  // column commands take it too, one a burst; and with the buses shared
  // the channel's pseudo-channels take turns on it.
  double act_rate = std::min({1.0 / t.RRD_S, 4.0 / t.FAW, static_cast<double>(cfg.device.org.banks()) / t.RC});
  const char* act_name = act_rate == 1.0 / t.RRD_S ? "tRRD_S" : act_rate == 4.0 / t.FAW ? "tFAW" : "tRC";
  const bool one_bus = !cfg.controller.dual_command;
  if ((cfg.controller.shared_command_bus || one_bus) && tot.acts > 0) {
    const double acts = static_cast<double>(tot.acts);
    double cycles_per_act = t.ACT_cycles + static_cast<double>(tot.pres) / acts;
    if (one_bus) cycles_per_act += static_cast<double>(tot.read_bursts + tot.write_bursts) / acts;
    const double sharers = cfg.controller.shared_command_bus ? cfg.device.org.pseudo_channels : 1;
    const double bus_rate = 1.0 / (cycles_per_act * sharers);
    if (bus_rate < act_rate) act_rate = bus_rate, act_name = one_bus ? "command bus" : "row command bus";
  }
  if (tot.acts > 0) {
    const double bytes_per_act =
        static_cast<double>(model.bytes_read() + model.bytes_written()) / static_cast<double>(tot.acts);
    s.activate_ceiling_gbps = std::min(s.peak_bandwidth_gbps, s.pseudo_channels * act_rate * bytes_per_act /
                                                                  (static_cast<double>(t.tCK_ps) / 1000.0));
  } else {
    s.activate_ceiling_gbps = s.peak_bandwidth_gbps;
  }

  std::uint64_t stall_total = 0;
  for (int i = 1; i < kNumConstraints; ++i) stall_total += tot.stall_cycles[i];
  int top = 0;
  for (int i = 1; i < kNumConstraints; ++i) {
    if (tot.stall_cycles[i] > tot.stall_cycles[top] || (top == 0 && tot.stall_cycles[i] > 0)) top = i;
    if (tot.stall_cycles[i] && stall_total)
      s.stall_share.emplace_back(std::string(constraint_name(static_cast<Constraint>(i))),
                                 static_cast<double>(tot.stall_cycles[i]) / stall_total);
  }
  std::sort(s.stall_share.begin(), s.stall_share.end(),
            [](const auto& a, const auto& b) { return a.second > b.second || (a.second == b.second && a.first < b.first); });
  // Data-bus idle time by cause; the summary's verdict comes from it.
  double no_burst = 0;  // the share with no burst queued
  if (cycles > 0) {
    const double bus_cycles = cycles * s.pseudo_channels;
    s.bus_busy_fraction =
        std::min(1.0, static_cast<double>(tot.read_bursts + tot.write_bursts) * t.burst_cycles / bus_cycles);
    double idle_total = static_cast<double>(tot.refresh_idle_cycles + tot.miss_idle_cycles + tot.conflict_idle_cycles);
    for (int i = 0; i < kNumConstraints; ++i) idle_total += static_cast<double>(tot.bus_idle_cycles[i]);
    if (idle_total > 0) {
      s.bus_idle_share.emplace_back("refresh", tot.refresh_idle_cycles / idle_total);
      no_burst = tot.bus_idle_cycles[0] / idle_total;
      s.bus_idle_share.emplace_back(kNoBurst, no_burst);
      s.bus_idle_share.emplace_back("row misses (activate)", tot.miss_idle_cycles / idle_total);
      s.bus_idle_share.emplace_back("row conflicts (precharge + activate)", tot.conflict_idle_cycles / idle_total);
      for (int i = 1; i < kNumConstraints; ++i)
        if (tot.bus_idle_cycles[i])
          s.bus_idle_share.emplace_back(std::string(constraint_name(static_cast<Constraint>(i))),
                                        tot.bus_idle_cycles[i] / idle_total);
      std::sort(s.bus_idle_share.begin(), s.bus_idle_share.end(), [](const auto& a, const auto& b) {
        return a.second > b.second || (a.second == b.second && a.first < b.first);
      });
    }
  }
  s.top_wait = top > 0 ? std::string(constraint_name(static_cast<Constraint>(top))) : "none";
  // Which limit is the run closest to? The data bus (all of it, or those
  // of the pseudo-channels the addresses concentrate on), the activate rate
  // (tRRD_S / tFAW / tRC), the supply of requests (a full queue holding the
  // requests behind it back, or queues mostly empty: too few in flight,
  // Little's law), or else the timing commands waited on.
  const double achieved = s.read_bandwidth_gbps + s.write_bandwidth_gbps;
  const double pc_peak = s.peak_bandwidth_gbps / s.pseudo_channels;
  // Bandwidth per pseudo-channel and per channel (the sum of its own).
  const double bb = cfg.device.org.burst_bytes();
  const std::uint32_t per_channel = cfg.device.org.pseudo_channels;
  s.channel_read_gbps.assign(model.num_pcs() / per_channel, 0.0);
  s.channel_write_gbps.assign(model.num_pcs() / per_channel, 0.0);
  for (std::uint32_t pc = 0; pc < model.num_pcs(); ++pc) {
    const PcStats& p = model.pc_stats(pc);
    const double rd = ns > 0 ? static_cast<double>(p.read_bursts) * bb / ns : 0;
    const double wr = ns > 0 ? static_cast<double>(p.write_bursts) * bb / ns : 0;
    s.pc_read_gbps.push_back(rd);
    s.pc_write_gbps.push_back(wr);
    s.channel_read_gbps[pc / per_channel] += rd;
    s.channel_write_gbps[pc / per_channel] += wr;
  }
  // The pseudo-channels whose data bus is nearly full, by number.
  std::string saturated;
  std::uint32_t n_saturated = 0;
  for (std::uint32_t pc = 0; pc < model.num_pcs(); ++pc) {
    if (s.pc_read_gbps[pc] + s.pc_write_gbps[pc] < 0.9 * pc_peak) continue;
    if (n_saturated < kNamedPcs) saturated += (n_saturated ? ", " : "") + std::to_string(pc);
    ++n_saturated;
  }
  if (n_saturated > kNamedPcs) saturated += " and " + std::to_string(n_saturated - kNamedPcs) + " more";
  const double queue_fill = (s.avg_read_queue + s.avg_write_queue) /
                            std::max(1u, std::max(cfg.controller.read_queue, cfg.controller.write_queue));
  if (achieved >= 0.9 * s.peak_bandwidth_gbps)
    s.binding_constraint = "data bus";
  else if (n_saturated == 1)
    s.binding_constraint = "data bus of pseudo-channel " + saturated + " (traffic concentrates there)";
  else if (n_saturated > 1)
    s.binding_constraint = "data buses of pseudo-channels " + saturated + " (traffic concentrates there)";
  else if (s.activate_ceiling_gbps < s.peak_bandwidth_gbps && achieved >= 0.85 * s.activate_ceiling_gbps)
    s.binding_constraint = std::string("activate rate (") + act_name + ")";
  // The source had nothing to offer most of the time while the window had room: it sets the
  // rate, whatever the memory would do with more (a trace's timing can keep nearly as many
  // in flight as allowed, which the in-flight rule below cannot tell apart).
  else if (s.source_idle_fraction >= 0.5 && s.queue_full_fraction < 0.05)
    s.binding_constraint = "request supply (the source had nothing to offer " +
                           two_decimals(100.0 * s.source_idle_fraction) + " % of the time with room in the window: " +
                           "a trace's own timing, or each load waiting for the one before)";
  // Data-bus idle time with no burst queued, while the next request is
  // held back by a full queue elsewhere, is the time queue room costs. (A
  // queue full because every request goes to it costs nothing: its bus
  // idles for its own timings, and more room would not help.)
  else if (s.queue_full_fraction >= 0.5 && s.avg_in_flight < 0.8 * s.outstanding && no_burst >= 0.2)
    s.binding_constraint = "queue room (a request waiting for its pseudo-channel's full queue holds back the ones "
                           "behind it)";
  // Every request allowed is in flight and none waits for room: more in
  // flight would carry more, whatever makes each one's latency (Little's
  // law, outstanding x size / latency).
  else if (s.avg_in_flight >= 0.95 * s.outstanding && s.queue_full_fraction < 0.05)
    s.binding_constraint = "requests in flight (every one allowed is in flight, none waits for queue room: "
                           "outstanding x size / latency)";
  // Fewer in flight than allowed, and none waiting for room: the source
  // offers no more (each load of a pointer chase waits for the one before;
  // a trace's own timing).
  else if (s.avg_in_flight < 0.8 * s.outstanding && s.queue_full_fraction < 0.05)
    s.binding_constraint = "request supply (" + two_decimals(s.avg_in_flight) + " of " + std::to_string(s.outstanding) +
                           " allowed in flight on average, none waiting for queue room: the source offers no more)";
  else if (!s.bus_idle_share.empty() && s.bus_idle_share.front().first == kNoBurst && queue_fill < 0.5)
    s.binding_constraint = "requests in flight (queues mostly empty: outstanding x size / latency)";
  else if (!s.bus_idle_share.empty())
    s.binding_constraint = "data bus idle mostly for " + s.bus_idle_share.front().first;
  else
    s.binding_constraint = "command timing (" + s.top_wait + ")";
  s.bank_activates = tot.bank_acts;
  return s;
}

void print_summary(std::ostream& out, const HbmSummary& s) {
  char line[256];
  auto row = [&](const char* k, const std::string& v) {
    std::snprintf(line, sizeof line, "  %-28s %s\n", k, v.c_str());
    out << line;
  };
  auto num = [](double v, const char* unit) { return two_decimals(v) + " " + unit; };
  const double total = s.read_bandwidth_gbps + s.write_bandwidth_gbps;
  out << "HBM run: " << s.device << ", " << s.stacks << " stack(s), " << s.pseudo_channels << " pseudo-channels\n";
  row("requests", std::to_string(s.requests) + " (" + std::to_string(s.reads) + " reads, " +
                      std::to_string(s.writes) + " writes)");
  if (s.requests_beyond_capacity)
    row("beyond capacity", std::to_string(s.requests_beyond_capacity) + " requests reach past the " +
                               std::to_string(s.capacity_bytes) + " bytes" +
                               " of the memory and alias lower addresses");
  row("simulated time", num(s.sim_time_ns, "ns"));
  row("peak bandwidth", num(s.peak_bandwidth_gbps, "GB/s"));
  row("read bandwidth", num(s.read_bandwidth_gbps, "GB/s"));
  row("write bandwidth", num(s.write_bandwidth_gbps, "GB/s"));
  row("total / peak", num(s.peak_bandwidth_gbps > 0 ? 100.0 * total / s.peak_bandwidth_gbps : 0, "%"));
  const auto min_max = [&](const char* name, const std::vector<double>& rd, const std::vector<double>& wr) {
    if (rd.empty()) return;
    double lo = 1e300, hi = 0;
    for (std::size_t i = 0; i < rd.size(); ++i) {
      lo = std::min(lo, rd[i] + wr[i]);
      hi = std::max(hi, rd[i] + wr[i]);
    }
    row(name, num(lo, "/ ") + num(hi, "GB/s (data bus, whole bursts)"));
  };
  min_max("per channel min / max", s.channel_read_gbps, s.channel_write_gbps);
  min_max("per pseudo-channel min / max", s.pc_read_gbps, s.pc_write_gbps);
  row("activate ceiling", num(s.activate_ceiling_gbps, "GB/s"));
  row("binding constraint", s.binding_constraint);
  std::string stalls;
  for (std::size_t i = 0; i < s.stall_share.size() && i < 4; ++i) {
    char b[64];
    std::snprintf(b, sizeof b, "%s%s %.0f%%", i ? ", " : "", s.stall_share[i].first.c_str(),
                  100.0 * s.stall_share[i].second);
    stalls += b;
  }
  row("command waits by constraint", stalls.empty() ? "-" : stalls);
  row("most waited-on constraint", s.top_wait);
  std::string idle;
  for (std::size_t i = 0; i < s.bus_idle_share.size() && i < 4; ++i) {
    char b[80];
    std::snprintf(b, sizeof b, "%s%s %.0f%%", i ? ", " : "", s.bus_idle_share[i].first.c_str(),
                  100.0 * s.bus_idle_share[i].second);
    idle += b;
  }
  row("data bus busy", num(100.0 * s.bus_busy_fraction, "%"));
  row("data bus idle because of", idle.empty() ? "-" : idle);
  row("latency avg / p50 / p99", num(s.avg_latency_ns, "/ ") + num(s.p50_latency_ns, "/ ") + num(s.p99_latency_ns, "ns"));
  row("latency max", num(s.max_latency_ns, "ns"));
  row("requests in flight", num(s.avg_in_flight, "on average, ") + std::to_string(s.outstanding) + " allowed");
  row("waiting for queue room", num(100.0 * s.queue_full_fraction, "% of the time"));
  row("source with nothing ready", num(100.0 * s.source_idle_fraction, "% of the time"));
  const double bursts = static_cast<double>(s.row_hits + s.row_misses + s.row_conflicts);
  if (bursts > 0) {
    char b[128];
    std::snprintf(b, sizeof b, "%.1f%% / %.1f%% / %.1f%%", 100.0 * s.row_hits / bursts, 100.0 * s.row_misses / bursts,
                  100.0 * s.row_conflicts / bursts);
    row("row hit / miss / conflict", b);
  }
  row("activates", std::to_string(s.activates));
  row("controller events", std::to_string(s.controller_steps));
  row("refreshes", std::to_string(s.refreshes) + " (" + num(100.0 * s.refresh_fraction, "% of bank time)") +
                       (s.refreshes_postponed ? ", " + std::to_string(s.refreshes_postponed) + " postponed" : "") +
                       (s.refreshes_owed ? ", " + std::to_string(s.refreshes_owed) + " still owed at the end" : ""));
  row("avg queue (read / write)", num(s.avg_read_queue, "/ ") + num(s.avg_write_queue, "bursts per PC"));
  row("wall / cpu time", num(s.wall_seconds, "s / ") + num(s.cpu_seconds, "s"));
  row("speed", num(s.requests_per_second / 1e6, "M requests/s (wall)"));
}

}  // namespace mxc::hbm
