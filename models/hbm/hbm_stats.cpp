#include "models/hbm/hbm_stats.h"

#include <algorithm>

namespace mxc::hbm {

void PcStats::add(const PcStats& o) {
  read_bursts += o.read_bursts;
  write_bursts += o.write_bursts;
  row_hits += o.row_hits;
  row_misses += o.row_misses;
  row_conflicts += o.row_conflicts;
  acts += o.acts;
  pres += o.pres;
  refreshes += o.refreshes;
  refreshes_postponed += o.refreshes_postponed;
  refresh_bank_cycles += o.refresh_bank_cycles;
  read_queue_integral += o.read_queue_integral;
  write_queue_integral += o.write_queue_integral;
  last_cycle = std::max(last_cycle, o.last_cycle);
  steps += o.steps;
  if (bank_acts.size() < o.bank_acts.size()) bank_acts.resize(o.bank_acts.size());
  for (std::size_t i = 0; i < o.bank_acts.size(); ++i) bank_acts[i] += o.bank_acts[i];
  for (int i = 0; i < kNumConstraints; ++i) stall_cycles[i] += o.stall_cycles[i];
  for (int i = 0; i < kNumConstraints; ++i) bus_idle_cycles[i] += o.bus_idle_cycles[i];
  refresh_idle_cycles += o.refresh_idle_cycles;
  miss_idle_cycles += o.miss_idle_cycles;
  conflict_idle_cycles += o.conflict_idle_cycles;
}

}  // namespace mxc::hbm
