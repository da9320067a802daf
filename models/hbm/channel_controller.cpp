#include "models/hbm/channel_controller.h"

#include <algorithm>

namespace mxc {

ChannelController::ChannelController(const HbmConfig& cfg, std::uint32_t unit, std::uint32_t units, DoneFn done)
    : m_spec(cfg.spec),
      m_cc(cfg.controller),
      m_bpg(cfg.spec.org.banks_per_group),
      m_bl(cfg.spec.burst_cycles()),
      m_done(std::move(done)),
      m_table(cfg.spec),
      m_banks(cfg.spec.org.banks()) {
  if (m_cc.check_timing) m_checker = std::make_unique<TimingChecker>(m_spec, m_cc.refresh);
  m_refresh_on = m_cc.refresh != RefreshMode::kNone;
  // Stagger the pseudo-channels so they do not all refresh in the same cycle.
  const std::uint64_t interval = m_cc.refresh == RefreshMode::kPerBank ? m_spec.timing.REFIsb : m_spec.timing.REFI;
  m_refresh_due = interval + interval * unit / std::max<std::uint32_t>(units, 1);
  s.bank_acts.assign(m_banks.size(), 0);
  s.bank_columns.assign(m_banks.size(), 0);
}

bool ChannelController::can_accept(bool write) const {
  return write ? m_wq.size() < m_cc.write_queue : m_rq.size() < m_cc.read_queue;
}

void ChannelController::account_queue(std::uint64_t c) {
  if (c > m_queue_mark) {
    s.queue_cycle_sum += (m_rq.size() + m_wq.size()) * (c - m_queue_mark);
    m_queue_mark = c;
  }
}

void ChannelController::enqueue(HbmBurst b, std::uint64_t cycle) {
  account_queue(cycle);
  if (m_next == kNever && m_refresh_on) catch_up_refresh(cycle);
  if (m_rq.empty() && m_wq.empty()) m_empty_total += cycle - std::min(cycle, m_empty_since);
  b.arrive = cycle + m_cc.frontend_cycles;
  const Bank& bk = m_banks[flat(b)];
  b.state_at_arrival = !bk.open ? kArrClosed : bk.row == b.row ? kArrHit : kArrConflict;
  b.act_seen = bk.act_cycle;
  (b.write ? m_wq : m_rq).push_back(b);
  // After step(cycle) both buses may be spent for this cycle.
  recompute_next(m_stepped != kNever && m_stepped >= cycle ? m_stepped + 1 : cycle);
}

void ChannelController::issue(DramCmd cmd, std::uint32_t bg, std::uint32_t bank, std::uint32_t row,
                              std::uint32_t col, std::uint64_t cycle) {
  const DramCommand dc{cycle, cmd, bg, bank, row, col};
  const std::uint32_t fb = bg * m_bpg + bank;
  Bank& bk = m_banks[fb];
  m_table.issue(dc, bk.act_cycle);
  switch (cmd) {
    case DramCmd::kAct:
      bk.open = true;
      bk.row = row;
      bk.act_cycle = cycle;
      m_open_mask |= std::uint64_t{1} << fb;
      ++s.acts;
      ++s.bank_acts[fb];
      break;
    case DramCmd::kPre:
      bk.open = false;
      m_open_mask &= ~(std::uint64_t{1} << fb);
      ++s.pres;
      break;
    case DramCmd::kPreA:
      for (auto& b : m_banks) b.open = false;
      m_open_mask = 0;
      ++s.pres;
      break;
    case DramCmd::kRefAb:
      ++s.refreshes;
      s.refresh_bank_cycles += std::uint64_t{m_spec.timing.RFC} * m_banks.size();
      break;
    case DramCmd::kRefSb:
      ++s.refreshes;
      s.refresh_bank_cycles += m_spec.timing.RFCsb;
      break;
    default:  // column commands
      ++s.bank_columns[fb];
      s.busy_cycles += m_bl;
      if (auto_precharges(cmd)) {
        bk.open = false;
        m_open_mask &= ~(std::uint64_t{1} << fb);
      }
      break;
  }
  (is_column(cmd) ? m_col_bus_free : m_row_bus_free) = cycle + 1;
  if (m_checker) m_checker->observe(dc);
  if (m_observer) m_observer(dc);
}

void ChannelController::update_mode() {
  if (m_write_mode) {
    if (m_wq.empty() || (m_wq.size() <= m_cc.write_low_watermark && !m_rq.empty())) m_write_mode = false;
  } else if (m_wq.size() >= m_cc.write_high_watermark || (m_rq.empty() && !m_wq.empty())) {
    m_write_mode = true;
  }
}

bool ChannelController::blocked(std::uint32_t fb, std::uint64_t c) const {
  if (!refresh_pending(c)) return false;
  return m_cc.refresh == RefreshMode::kAllBank || fb == m_refresh_bank;
}

bool ChannelController::refresh_step(std::uint64_t c) {
  if (m_cc.refresh == RefreshMode::kAllBank) {
    if (m_open_mask) {
      if (m_table.earliest_all(TimingTable::kPre, m_open_mask) > c) return false;
      issue(DramCmd::kPreA, 0, 0, 0, 0, c);
      return true;
    }
    if (m_table.earliest_all(TimingTable::kRefAb, 0) > c) return false;
    issue(DramCmd::kRefAb, 0, 0, 0, 0, c);
    m_refresh_due += m_spec.timing.REFI;
    return true;
  }
  const std::uint32_t bg = m_refresh_bank / m_bpg, ba = m_refresh_bank % m_bpg;
  if (m_banks[m_refresh_bank].open) {
    if (m_table.earliest(TimingTable::kPre, bg, ba) > c) return false;
    issue(DramCmd::kPre, bg, ba, 0, 0, c);
    return true;
  }
  if (m_table.earliest(TimingTable::kRefSb, bg, ba) > c) return false;
  issue(DramCmd::kRefSb, bg, ba, 0, 0, c);
  m_refresh_due += m_spec.timing.REFIsb;
  m_refresh_bank = (m_refresh_bank + 1) % m_banks.size();
  return true;
}

std::uint64_t ChannelController::refresh_next(std::uint64_t c) const {
  std::uint64_t e;
  if (m_cc.refresh == RefreshMode::kAllBank) {
    e = m_open_mask ? m_table.earliest_all(TimingTable::kPre, m_open_mask)
                    : m_table.earliest_all(TimingTable::kRefAb, 0);
  } else {
    const std::uint32_t bg = m_refresh_bank / m_bpg, ba = m_refresh_bank % m_bpg;
    e = m_banks[m_refresh_bank].open ? m_table.earliest(TimingTable::kPre, bg, ba)
                                     : m_table.earliest(TimingTable::kRefSb, bg, ba);
  }
  return std::max({e, m_row_bus_free, c});
}

void ChannelController::catch_up_refresh(std::uint64_t before) {
  // Idle since m_refresh_due: nothing else was issued meanwhile, so the
  // refreshes owed can be placed at the cycles they would have had.
  while (m_refresh_due < before) {
    const std::uint64_t t = refresh_next(m_refresh_due);
    if (t >= before) return;  // left pending; step() finishes it
    refresh_step(t);
  }
}

void ChannelController::step(std::uint64_t c) {
  account_queue(c);
  m_stepped = c;
  update_mode();
  bool row_used = c < m_row_bus_free;
  bool col_used = c < m_col_bus_free;
  if (refresh_pending(c) && !row_used) row_used = refresh_step(c);
  auto& q = m_write_mode ? m_wq : m_rq;
  if (!q.empty()) {
    const bool starving = c >= q.front().arrive + m_cc.starvation_cycles;
    std::size_t limit = starving ? 1 : q.size();
    std::uint64_t hit_mask = 0;
    for (std::size_t i = 0; i < limit && q[i].arrive <= c; ++i) {
      const Bank& bk = m_banks[flat(q[i])];
      if (bk.open && bk.row == q[i].row) hit_mask |= std::uint64_t{1} << flat(q[i]);
    }
    if (!col_used && hit_mask) {
      for (std::size_t i = 0; i < limit && q[i].arrive <= c; ++i) {
        const HbmBurst& b = q[i];
        const std::uint32_t fb = flat(b);
        Bank& bk = m_banks[fb];
        if (!bk.open || bk.row != b.row || blocked(fb, c)) continue;
        const auto kind = b.write ? TimingTable::kWr : TimingTable::kRd;
        if (m_table.earliest(kind, b.bg, b.bank) > c) continue;
        // Closed page: precharge with the access unless another queued request wants this row.
        bool auto_pre = false;
        if (m_cc.page_policy == PagePolicy::kClosed) {
          auto same = [&](const HbmBurst& o) { return &o != &b && flat(o) == fb && o.row == b.row; };
          auto_pre = std::none_of(m_rq.begin(), m_rq.end(), same) && std::none_of(m_wq.begin(), m_wq.end(), same);
        }
        // Why was the data bus idle before this burst? (the binding constraint)
        if (c > m_data_free) {
          const std::uint64_t idle = c - m_data_free;
          const std::uint64_t empty = std::min(idle, empty_total_at(c) - m_empty_at_data_free);
          s.idle_empty_cycles += empty;
          Constraint why = m_table.reason(kind, b.bg, b.bank);
          if (why == Constraint::kRCD) why = bk.act_reason;
          s.stall_cycles[static_cast<int>(why)] += idle - empty;
        }
        if (b.state_at_arrival == kArrHit && b.act_seen == bk.act_cycle) ++s.row_hits;
        else if (b.state_at_arrival == kArrConflict) ++s.row_conflicts;
        else ++s.row_misses;
        const DramCmd cmd = b.write ? (auto_pre ? DramCmd::kWrA : DramCmd::kWr) : (auto_pre ? DramCmd::kRdA : DramCmd::kRd);
        issue(cmd, b.bg, b.bank, b.row, b.col, c);
        m_data_free = c + m_bl;
        m_empty_at_data_free = empty_total_at(c);
        const std::uint32_t tag = b.tag;
        const bool write = b.write;
        q.erase(q.begin() + static_cast<std::ptrdiff_t>(i));
        limit = std::min(limit, q.size());
        if (m_rq.empty() && m_wq.empty()) m_empty_since = c;
        (write ? s.writes : s.reads)++;
        m_done(tag, c + (write ? m_spec.timing.CWL : m_spec.timing.CL) + m_bl);
        col_used = true;
        break;
      }
    }
    if (!row_used) {
      for (std::size_t i = 0; i < limit && q[i].arrive <= c; ++i) {
        const HbmBurst& b = q[i];
        const std::uint32_t fb = flat(b);
        if (blocked(fb, c)) continue;
        Bank& bk = m_banks[fb];
        if (!bk.open) {
          const std::uint64_t e = m_table.earliest(TimingTable::kAct, b.bg, b.bank);
          if (e > c) continue;
          const Constraint why = e > b.arrive ? m_table.reason(TimingTable::kAct, b.bg, b.bank) : Constraint::kRCD;
          issue(DramCmd::kAct, b.bg, b.bank, b.row, 0, c);
          bk.act_reason = why;
          break;
        }
        if (bk.row == b.row) continue;
        // FR-FCFS: keep serving hits to the open row unless this request is starving.
        if (!starving && ((hit_mask >> fb) & 1)) continue;
        if (m_table.earliest(TimingTable::kPre, b.bg, b.bank) > c) continue;
        issue(DramCmd::kPre, b.bg, b.bank, 0, 0, c);
        break;
      }
    }
  }
  recompute_next(c + 1);
}

void ChannelController::recompute_next(std::uint64_t lo) {
  update_mode();
  std::uint64_t n = kNever;
  const bool pending = refresh_pending(lo);
  if (m_refresh_on) n = pending ? refresh_next(lo) : m_refresh_due;
  if (m_rq.empty() && m_wq.empty()) {
    m_next = pending ? std::max(n, lo) : kNever;
    return;
  }
  const auto& q = m_write_mode ? m_wq : m_rq;
  const std::uint64_t starve_at = q.front().arrive + m_cc.starvation_cycles;
  const bool starving = lo >= starve_at;
  if (!starving) n = std::min(n, starve_at);
  const std::size_t limit = starving ? 1 : q.size();
  std::uint64_t hit_mask = 0;
  for (std::size_t i = 0; i < limit && q[i].arrive <= lo; ++i) {
    const Bank& bk = m_banks[flat(q[i])];
    if (bk.open && bk.row == q[i].row) hit_mask |= std::uint64_t{1} << flat(q[i]);
  }
  for (std::size_t i = 0; i < limit; ++i) {
    const HbmBurst& b = q[i];
    if (b.arrive > lo) {
      n = std::min(n, b.arrive);
      break;
    }
    const std::uint32_t fb = flat(b);
    if (blocked(fb, lo)) continue;  // the refresh's own events are in n
    const Bank& bk = m_banks[fb];
    std::uint64_t e;
    if (bk.open && bk.row == b.row) {
      e = std::max(m_table.earliest(b.write ? TimingTable::kWr : TimingTable::kRd, b.bg, b.bank), m_col_bus_free);
    } else if (!bk.open) {
      e = std::max(m_table.earliest(TimingTable::kAct, b.bg, b.bank), m_row_bus_free);
    } else {
      if (!starving && ((hit_mask >> fb) & 1)) continue;
      e = std::max(m_table.earliest(TimingTable::kPre, b.bg, b.bank), m_row_bus_free);
    }
    n = std::min(n, e);
  }
  m_next = std::max(n, lo);
}

void ChannelController::finish(std::uint64_t cycle) {
  account_queue(cycle);
  if (m_next == kNever && m_refresh_on) catch_up_refresh(cycle);
  if (m_checker) m_checker->finish(cycle);
}

}  // namespace mxc
