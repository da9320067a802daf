#include "tests/hbm/controller_reference.h"

#include <algorithm>
#include <limits>

namespace mxc::hbm::test {

namespace {
constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();
}

ControllerReference::ControllerReference(const MemoryConfig& cfg, std::uint32_t pcs)
    : m_cfg(cfg),
      m_turns(cfg.controller.shared_command_bus ? cfg.device.org.pseudo_channels : 1),
      m_checker(cfg.device, pcs, cfg.controller.dual_command, cfg.controller.shared_command_bus),
      m_pcs(pcs) {
  m_checker.set_check_refresh(cfg.controller.refresh != RefreshMode::kNone);
  const HbmTiming& t = cfg.device.t;
  for (Pc& p : m_pcs) {
    p.open.assign(cfg.device.org.banks(), -1);
    p.refresh.until.assign(cfg.device.org.banks(), 0);
    p.stats.bank_acts.assign(cfg.device.org.banks(), 0);
    switch (cfg.controller.refresh) {
      case RefreshMode::kAllBank:
        p.refresh.due = t.REFI;
        break;
      case RefreshMode::kPerBank:
        p.refresh.due = t.REFIsb;
        break;
      case RefreshMode::kNone:
        p.refresh.due = kNever;
        break;
    }
  }
}

bool ControllerReference::can_accept(std::uint32_t pc, bool write, std::uint32_t n) const {
  const Pc& p = m_pcs[pc];
  return write ? p.writes.size() + n <= m_cfg.controller.write_queue
               : p.reads.size() + n <= m_cfg.controller.read_queue;
}

void ControllerReference::accept(std::uint64_t id, const std::vector<BurstTarget>& bursts, bool write,
                                 std::uint64_t cycle) {
  for (const BurstTarget& b : bursts) {
    Pc& p = m_pcs[b.pc];
    // Seen frontend_cycles after the cycle, and never in a cycle already stepped.
    const std::uint64_t arrival = std::max(cycle + m_cfg.controller.frontend_cycles, m_next);
    (write ? p.writes : p.reads).push_back(Burst{id, arrival, b.bank, b.row, b.col, cycle});
  }
  m_remaining[id] = static_cast<std::uint32_t>(bursts.size());
  m_latest[id] = 0;
}

std::uint64_t ControllerReference::queued() const {
  std::uint64_t n = 0;
  for (const Pc& p : m_pcs) n += p.reads.size() + p.writes.size();
  return n;
}

void ControllerReference::run_until(std::uint64_t cycle) {
  for (; m_next <= cycle; ++m_next) {
    // In each cycle the pseudo-channels that share buses take them in
    // turn, starting with number (cycle mod pseudo-channels).
    for (std::uint32_t base = 0; base < m_pcs.size(); base += m_turns)
      for (std::uint32_t k = 0; k < m_turns; ++k)
        step(base + static_cast<std::uint32_t>((m_next + k) % m_turns), m_next);
  }
}

bool ControllerReference::blocks(const Pc& p, std::uint32_t bank) const {
  return p.refresh.pending && (m_cfg.controller.refresh == RefreshMode::kAllBank || bank == p.refresh.bank);
}

bool ControllerReference::refreshing(const Pc& p, std::uint32_t bank, std::uint64_t c) const {
  return blocks(p, bank) || c < p.refresh.until[bank];
}

std::uint32_t ControllerReference::hits(const Pc& p, const std::vector<Burst>& q, std::uint32_t bank) {
  std::uint32_t n = 0;
  for (const Burst& b : q) n += b.bank == bank && p.open[bank] == static_cast<std::int64_t>(b.row);
  return n;
}

bool ControllerReference::legal(std::uint32_t pc, Cmd cmd, std::uint32_t bank, std::uint32_t row,
                                std::uint64_t c) const {
  return m_checker.legal(pc, DramCommand{cmd, bank, row, 0, c});
}

void ControllerReference::update_refresh(Pc& p, std::uint64_t c) {
  // docs/hbm.md, "Refresh postponement": a busy pseudo-channel may owe up
  // to refresh_postpone all-bank refreshes; the one that falls due with
  // that many owed is issued with all of them; an idle one pays at once.
  Refresh& r = p.refresh;
  if (r.pending) return;
  const bool busy = !p.reads.empty() || !p.writes.empty();
  const std::uint32_t postpone =
      m_cfg.controller.refresh == RefreshMode::kAllBank ? m_cfg.controller.refresh_postpone : 0;
  if (c >= r.due) {
    if (busy && r.owed < postpone) {
      ++r.owed;
      ++p.stats.refreshes_postponed;
      r.due += m_cfg.device.t.REFI;
      return;
    }
    r.pending = r.for_due = true;
    r.since = c;
  } else if (r.owed != 0 && !busy) {
    r.pending = true;
    r.since = c;
  }
}

void ControllerReference::issue(std::uint32_t pc, Cmd cmd, std::uint32_t bank, std::uint32_t row, std::uint32_t col,
                                std::uint64_t c) {
  Pc& p = m_pcs[pc];
  const DramCommand d{cmd, bank, row, col, c};
  m_checker.on_command(pc, d);
  p.issued.push_back(d);
  Stats& s = p.stats;
  switch (cmd) {
    case Cmd::kAct:
      p.open[bank] = row;
      ++s.acts;
      ++s.bank_acts[bank];
      break;
    case Cmd::kPre:
      ++s.pres;
      p.open[bank] = -1;
      break;
    case Cmd::kRdA:
    case Cmd::kWrA:
      p.open[bank] = -1;
      break;
    case Cmd::kPreA:
      ++s.pres;
      std::fill(p.open.begin(), p.open.end(), -1);
      break;
    case Cmd::kRefAb:
    case Cmd::kRefSb: {
      const HbmTiming& t = m_cfg.device.t;
      Refresh& r = p.refresh;
      if (r.for_due)
        r.due += cmd == Cmd::kRefAb ? t.REFI : t.REFIsb;
      else
        --r.owed;
      r.for_due = false;
      r.pending = r.owed != 0;  // the owed ones follow back to back
      ++s.refreshes;
      // Each bank it refreshes was held from the refresh becoming pending
      // (or from the end of its last refresh, when that ended later: an
      // owed one of a batch, or one that fell due while the last ran) to
      // the end of this one's tRFC / tRFCsb.
      const auto hold = [&](std::uint32_t b, std::uint64_t end) {
        s.refresh_bank_cycles += end - std::min(end, std::max(r.since, r.until[b]));
        r.until[b] = end;
      };
      if (cmd == Cmd::kRefAb) {
        for (std::uint32_t b = 0; b < r.until.size(); ++b) hold(b, c + t.RFC);
      } else {
        hold(bank, c + t.RFCsb);
        r.bank = (r.bank + 1) % m_cfg.device.org.banks();
      }
      break;
    }
    default:
      break;
  }
}

void ControllerReference::issue_column(std::uint32_t pc, std::size_t i, std::uint64_t c) {
  Pc& p = m_pcs[pc];
  std::vector<Burst>& q = p.write_mode ? p.writes : p.reads;
  std::uint32_t& bypassed = p.write_mode ? p.bypassed_writes : p.bypassed_reads;
  const Burst b = q[i];
  // Closed page: auto-precharge when no other queued burst, of either
  // direction, wants the row.
  const bool ap =
      m_cfg.controller.page_policy == PagePolicy::kClosed && hits(p, p.reads, b.bank) + hits(p, p.writes, b.bank) == 1;
  const Cmd cmd = p.write_mode ? (ap ? Cmd::kWrA : Cmd::kWr) : (ap ? Cmd::kRdA : Cmd::kRd);
  issue(pc, cmd, b.bank, b.row, b.col, c);
  Stats& s = p.stats;
  ++(p.write_mode ? s.write_bursts : s.read_bursts);
  ++(b.first == Cmd::kAct ? s.row_misses : b.first == Cmd::kPre ? s.row_conflicts : s.row_hits);
  (p.write_mode ? s.write_queue_integral : s.read_queue_integral) += c - b.queued;
  s.bus_idle_cycles += c - s.bus_free;
  s.bus_free = c + m_cfg.device.t.burst_cycles;
  // The oldest burst is bypassed when a younger one goes while it could
  // have gone instead (arrived, its bank not held by refresh).
  if (i != 0 && q[0].arrival <= c && !refreshing(p, q[0].bank, c))
    bypassed = std::min<std::uint32_t>(bypassed + 1, 0xffff);
  q.erase(q.begin() + static_cast<std::ptrdiff_t>(i));
  if (i == 0) bypassed = 0;
  const HbmTiming& t = m_cfg.device.t;
  const std::uint64_t done = c + (p.write_mode ? t.CWL : t.CL) + t.burst_cycles + m_cfg.controller.backend_cycles;
  m_latest[b.id] = std::max(m_latest[b.id], done);
  if (--m_remaining[b.id] == 0) m_done[b.id] = m_latest[b.id];
}

void ControllerReference::step(std::uint32_t pc, std::uint64_t c) {
  Pc& p = m_pcs[pc];
  const ControllerConfig& cc = m_cfg.controller;
  // Write draining: start at the high watermark (or when reads run out),
  // stop at the low one with reads waiting (or when writes run out). The
  // queues count bursts from their acceptance.
  if (p.write_mode) {
    if (p.writes.empty() || (p.writes.size() <= cc.write_low_watermark && !p.reads.empty())) p.write_mode = false;
  } else if (!p.writes.empty() && (p.writes.size() >= cc.write_high_watermark || p.reads.empty())) {
    p.write_mode = true;
  }

  // Refresh: once pending it takes the row bus for its PREA / PRE and REF.
  update_refresh(p, c);
  bool row_used = false;
  if (p.refresh.pending) {
    Cmd cmd;
    std::uint32_t bank = 0;
    if (cc.refresh == RefreshMode::kAllBank) {
      cmd = std::any_of(p.open.begin(), p.open.end(), [](std::int64_t r) { return r >= 0; }) ? Cmd::kPreA : Cmd::kRefAb;
    } else {
      bank = p.refresh.bank;
      cmd = p.open[bank] >= 0 ? Cmd::kPre : Cmd::kRefSb;
    }
    if (legal(pc, cmd, bank, 0, c)) {
      issue(pc, cmd, bank, 0, 0, c);
      row_used = true;
    }
  }

  std::vector<Burst>& q = p.write_mode ? p.writes : p.reads;
  const std::uint32_t bypassed = p.write_mode ? p.bypassed_writes : p.bypassed_reads;
  const Cmd col_cmd = p.write_mode ? Cmd::kWr : Cmd::kRd;
  constexpr std::size_t kNone = ~std::size_t{0};
  std::size_t col = kNone, row = kNone;
  Cmd row_cmd = Cmd::kAct;
  // The command burst `b` needs next: column on a hit, ACT to a closed
  // bank, PRE on a conflict.
  const auto needed = [&](const Burst& b) {
    return p.open[b.bank] == static_cast<std::int64_t>(b.row) ? col_cmd : p.open[b.bank] < 0 ? Cmd::kAct : Cmd::kPre;
  };
  if (!q.empty() && bypassed >= cc.starvation_cap && q[0].arrival <= c && !refreshing(p, q[0].bank, c)) {
    // Starving: only the oldest burst is served.
    const Cmd cmd = needed(q[0]);
    if (legal(pc, cmd, q[0].bank, q[0].row, c)) {
      if (is_column(cmd))
        col = 0;
      else
        row = 0, row_cmd = cmd;
    }
  } else {
    // FR-FCFS: the oldest arrived row hit whose column command is legal
    // gets the column bus; the oldest arrived burst needing an ACT or PRE
    // that is legal gets the row bus, but a row with queued hits is not
    // precharged. Refresh holds the banks it blocks.
    for (std::size_t i = 0; i < q.size() && col == kNone; ++i) {
      const Burst& b = q[i];
      if (b.arrival <= c && !blocks(p, b.bank) && needed(b) == col_cmd && legal(pc, col_cmd, b.bank, b.row, c)) col = i;
    }
    for (std::size_t i = 0; i < q.size() && row == kNone; ++i) {
      const Burst& b = q[i];
      const Cmd cmd = needed(b);
      if (b.arrival > c || blocks(p, b.bank) || is_column(cmd)) continue;
      if (cmd == Cmd::kPre && hits(p, q, b.bank) != 0) continue;
      if (legal(pc, cmd, b.bank, b.row, c)) row = i, row_cmd = cmd;
    }
    // Not a row command and a column command to one bank in one cycle.
    if (col != kNone && row != kNone && q[col].bank == q[row].bank) row = kNone;
  }
  if (row_used) row = kNone;
  if (!cc.dual_command && col != kNone) row = kNone;  // one command bus
  if (!cc.dual_command && row_used) col = kNone;
  if (row != kNone) {
    if (q[row].first == Cmd::kRd) q[row].first = row_cmd;  // classifies the burst
    issue(pc, row_cmd, q[row].bank, q[row].row, q[row].col, c);
  }
  if (col != kNone) issue_column(pc, col, c);
}

}  // namespace mxc::hbm::test
