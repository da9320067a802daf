#include "models/hbm/timing_checker.h"

#include <algorithm>

namespace mxc::hbm {

TimingChecker::TimingChecker(const HbmDeviceSpec& spec, std::uint32_t pseudo_channels, bool dual_command,
                             bool shared_buses)
    : m_spec(spec),
      m_dual(dual_command),
      m_pcs(pseudo_channels),
      m_bus_group(shared_buses ? spec.org.pseudo_channels : 1),
      m_channels((pseudo_channels + m_bus_group - 1) / m_bus_group) {
  for (Pc& p : m_pcs) {
    p.banks.resize(spec.org.banks());
    p.group_act.assign(spec.org.bank_groups, kLongAgo);
    p.group_rd.assign(spec.org.bank_groups, kLongAgo);
    p.group_wr.assign(spec.org.bank_groups, kLongAgo);
  }
}

void TimingChecker::fail(std::uint32_t pc, const DramCommand& c, const std::string& what) {
  report("pc " + std::to_string(pc) + " cycle " + std::to_string(c.cycle) + ": " + std::string(cmd_name(c.cmd)) +
         " bank " + std::to_string(c.bank) + ": " + what);
}

void TimingChecker::report(std::string violation) {
  ++m_violation_count;
  if (m_violations.size() < 100) m_violations.push_back(std::move(violation));
}

void TimingChecker::fail_gap(std::uint32_t pc, const DramCommand& c, const char* rule, std::int64_t gap,
                             std::int64_t got) {
  fail(pc, c, std::string(rule) + " needs " + std::to_string(gap) + ", got " + std::to_string(got));
}

void TimingChecker::close_row(Bank& b, std::int64_t at) {
  b.open_row = -1;
  b.closed_at = at;
}

void TimingChecker::check_refresh_rate(std::uint32_t pc, std::uint64_t cycle, bool late_at, bool early_at) {
  if (!m_check_refresh) return;
  // JEDEC lets a controller postpone at most 8 refreshes and pull in at
  // most 8. So by cycle t each bank has had at least floor(t / tREFI) - 8
  // of them (REFab counts for every bank), and at most floor(t / p) + 9,
  // p the shorter of tREFI and a per-bank round (banks x tREFIsb, which
  // rounding leaves a little under tREFI): the refresh of the current
  // interval may already have come, a per-bank one anywhere in it.
  const HbmTiming& t = m_spec.t;
  const std::uint64_t due = cycle / t.REFI;
  const std::uint64_t most = cycle / std::min<std::uint64_t>(t.REFI, std::uint64_t{t.REFIsb} * m_spec.org.banks()) + 9;
  for (std::size_t b = 0; b < m_pcs[pc].banks.size(); ++b) {
    const std::uint64_t had = m_pcs[pc].banks[b].refreshes;
    const bool late = late_at && had + 8 < due, early = early_at && had > most;
    if (late || early) {
      // No command's name: a bank falls behind between commands, whatever the refresh mode.
      report("pc " + std::to_string(pc) + " cycle " + std::to_string(cycle) + ": bank " + std::to_string(b) +
             ": refresh interval: " + std::to_string(had) + " refreshes by cycle " + std::to_string(cycle) +
             ", tREFI " + std::to_string(t.REFI) +
             (late ? " needs at least " + std::to_string(due - 8)
                   : " allows at most " + std::to_string(most) + " (8 pulled in)"));
      return;
    }
  }
}

template <bool kRecord>
bool TimingChecker::apply(std::uint32_t pc, const DramCommand& c) {
  // On a query (kRecord false) every rule is evaluated as for on_command(),
  // but a breach only clears `ok` and nothing is written.
  bool ok = true;
  const auto need = [&](const char* rule, std::int64_t since, std::int64_t gap) {
    if constexpr (kRecord) this->need(pc, c, rule, since, gap);
    else ok &= static_cast<std::int64_t>(c.cycle) - since >= gap;
  };
  const auto fail = [&](const std::string& what) {
    if constexpr (kRecord) this->fail(pc, c, what);
    else ok = false;
  };
  const HbmTiming& t = m_spec.t;
  Pc& p = m_pcs.at(pc);
  Bank& b = p.banks.at(c.bank);
  const std::uint32_t g = c.bank / m_spec.org.banks_per_group;
  const auto now = static_cast<std::int64_t>(c.cycle);
  const std::int64_t bl = t.burst_cycles;
  if constexpr (kRecord) ++m_commands;

  // Command buses: each channel has a row and a column bus (or one for
  // both), shared by its pseudo-channels; a command holds its bus for one
  // cycle, an ACT for ACT_cycles.
  const bool col = is_column(c.cmd);
  // Cycles may not go back on a set of buses (so not per pseudo-channel either).
  Buses& ch = m_channels.at(pc / m_bus_group);
  if (now < ch.last) fail("command issued before an earlier one of its channel (cycle went backwards)");
  std::int64_t& free = m_dual && col ? ch.col_free : ch.row_free;
  if (now < free)
    fail(std::string(!m_dual ? "command bus" : col ? "column command bus" : "row command bus") +
         " of the channel: busy until cycle " + std::to_string(free) +
         " (two commands in one cycle, or one during an ACT's " + std::to_string(t.ACT_cycles) + " cycles)");
  if constexpr (kRecord) {
    ch.last = now;
    free = now + (c.cmd == Cmd::kAct ? std::int64_t{t.ACT_cycles} : 1);
  }

  switch (c.cmd) {
    case Cmd::kAct: {
      if (b.open_row >= 0) fail("activate to a bank with an open row");
      need("tRC", b.act, t.RC);
      need("tRP", b.closed_at, t.RP);
      need("tRRD_S", p.act, t.RRD_S);
      need("tRRD_L", p.group_act[g], t.RRD_L);
      need("tFAW", p.acts4[p.act_n % 4], t.FAW);
      need("tRFC", p.refab, t.RFC);
      need("tRFCsb", b.refsb, t.RFCsb);
      if (p.refsb != b.refsb) need("tRREFD", p.refsb, t.RREFD);
      if constexpr (kRecord) {
        b.open_row = c.row;
        b.act = p.act = p.group_act[g] = now;
        p.acts4[p.act_n++ % 4] = now;
      }
      break;
    }
    case Cmd::kPre:
    case Cmd::kPreA: {
      const std::size_t first = c.cmd == Cmd::kPre ? c.bank : 0;
      const std::size_t last = c.cmd == Cmd::kPre ? c.bank + 1 : p.banks.size();
      need("tRFC", p.refab, t.RFC);
      need("tPPD", p.pre, t.PPD);  // any precharge command, to any bank (0: no such rule)
      if constexpr (kRecord) p.pre = now;
      for (std::size_t i = first; i < last; ++i) {
        Bank& x = p.banks[i];
        // Precharging a closed bank is a no-op; one whose auto-precharge has
        // not started yet (an RDA's or WRA's, closed_at ahead) is still
        // open, and waits as for a plain precharge (JEDEC's RDA / WRA to
        // PRE or PREA of the bank).
        if (x.open_row < 0 && x.closed_at <= now) continue;
        need("tRAS", x.act, t.RAS);
        need("tRTP", x.rd, t.RTP);
        need("tWR", x.wr, t.CWL + bl + t.WR);
        if constexpr (kRecord)
          if (x.open_row >= 0) close_row(x, now);
      }
      break;
    }
    case Cmd::kRd:
    case Cmd::kRdA:
    case Cmd::kWr:
    case Cmd::kWrA: {
      const bool rd = is_read(c.cmd);
      if (b.open_row != static_cast<std::int64_t>(c.row))
        fail("column command to row " + std::to_string(c.row) + " but open row is " + std::to_string(b.open_row));
      need("tRCD", b.act, rd ? t.RCDRD : t.RCDWR);
      check_data_bus<kRecord>(pc, now, now + (rd ? t.CL : t.CWL), rd, fail);
      if (rd) {
        need("tCCD_S", p.rd, std::max<std::int64_t>(t.CCD_S, bl));
        need("tCCD_L", p.group_rd[g], std::max<std::int64_t>(t.CCD_L, bl));
        need("tWTR_S", p.wr, t.CWL + bl + t.WTR_S);
        need("tWTR_L", p.group_wr[g], t.CWL + bl + t.WTR_L);
        if constexpr (kRecord) b.rd = p.rd = p.group_rd[g] = now;
      } else {
        need("tCCD_S", p.wr, std::max<std::int64_t>(t.CCD_S, bl));
        need("tCCD_L", p.group_wr[g], std::max<std::int64_t>(t.CCD_L, bl));
        need("tRTW", p.rd, t.RTW);
        if constexpr (kRecord) b.wr = p.wr = p.group_wr[g] = now;
      }
      // An auto-precharge starts once tRAS, and tRTP or write recovery,
      // allow: a read's also waits out the recovery of an earlier write.
      if constexpr (kRecord) {
        if (c.cmd == Cmd::kRdA) close_row(b, std::max({now + t.RTP, b.act + t.RAS, b.wr + t.CWL + bl + t.WR}));
        if (c.cmd == Cmd::kWrA) close_row(b, std::max(now + t.CWL + bl + t.WR, b.act + t.RAS));
      }
      break;
    }
    case Cmd::kRefAb: {
      if constexpr (kRecord) check_refresh_rate(pc, c.cycle, true, false);  // before it counts (timing_checker.h)
      for (const Bank& x : p.banks) {
        if (x.open_row >= 0) {
          fail("all-bank refresh with an open row");
          break;
        }
      }
      for (Bank& x : p.banks) {
        need("tRP", x.closed_at, t.RP);
        need("tRC", x.act, t.RC);  // ACT to ACT or refresh; tRAS + tRP may fall short of it
        need("tRFCsb", x.refsb, t.RFCsb);
        if constexpr (kRecord) ++x.refreshes;
      }
      need("tRFC", p.refab, t.RFC);
      if constexpr (kRecord) p.refab = now;
      break;
    }
    case Cmd::kRefSb: {
      if constexpr (kRecord) check_refresh_rate(pc, c.cycle, true, false);  // before it counts (timing_checker.h)
      if (b.open_row >= 0) fail("per-bank refresh to a bank with an open row");
      need("tRP", b.closed_at, t.RP);
      need("tRC", b.act, t.RC);
      need("tRFC", p.refab, t.RFC);
      need("tRFCsb", b.refsb, t.RFCsb);
      if (p.refsb != b.refsb) need("tRREFD", p.refsb, t.RREFD);
      need("tRRD_S", p.act, t.RRD_S);  // an activate to any bank, as to another activate
      need("tRRD_L", p.group_act[g], t.RRD_L);  // ... and to a bank of its group
      if constexpr (kRecord) {
        b.refsb = p.refsb = now;
        ++b.refreshes;
      }
      break;
    }
  }
  if constexpr (kRecord) {
    // After a refresh only the pull-in bound: it was checked as late before it counted.
    if (c.cmd == Cmd::kRefAb || c.cmd == Cmd::kRefSb) check_refresh_rate(pc, c.cycle, false, true);
    else if ((m_commands & 1023) == 0) check_refresh_rate(pc, c.cycle, true, true);
  }
  return ok;
}

void TimingChecker::on_command(std::uint32_t pc, const DramCommand& c) { apply<true>(pc, c); }

bool TimingChecker::legal(std::uint32_t pc, const DramCommand& c) const {
  // apply<false> writes nothing (every write is under kRecord).
  return const_cast<TimingChecker*>(this)->apply<false>(pc, c);
}

template <bool kRecord, class Fail>
void TimingChecker::check_data_bus(std::uint32_t pc, std::int64_t now, std::int64_t start, bool read, Fail&& fail) {
  // The pseudo-channel's data bus carries one burst at a time: a read's
  // data from CL after its command, a write's from CWL, each for the burst's
  // cycles. Bursts whose data is over by this command's cycle are dropped
  // (no later command's data starts before its own cycle); a query passes
  // over them.
  Pc& p = m_pcs[pc];
  const std::int64_t end = start + m_spec.t.burst_cycles;
  if constexpr (kRecord) std::erase_if(p.data, [&](const DataBurst& d) { return d.end <= now; });
  for (const DataBurst& d : p.data)
    if (start < d.end && d.start < end && (kRecord || d.end > now))
      fail(std::string("data bus: ") + (read ? "read" : "write") + " data in cycles " + std::to_string(start) + ".." +
           std::to_string(end - 1) + " overlaps the " + (d.read ? "read" : "write") + " data in cycles " +
           std::to_string(d.start) + ".." + std::to_string(d.end - 1) + " (CL " + std::to_string(m_spec.t.CL) +
           ", CWL " + std::to_string(m_spec.t.CWL) + ")");
  if constexpr (kRecord) p.data.push_back({start, end, read});
}

void TimingChecker::finish(std::uint64_t cycle) {
  for (std::uint32_t pc = 0; pc < m_pcs.size(); ++pc) check_refresh_rate(pc, cycle, true, true);
}

}  // namespace mxc::hbm
