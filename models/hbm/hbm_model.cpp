#include "models/hbm/hbm_model.h"

#include <algorithm>
#include <stdexcept>

namespace mxc {

HbmModel::HbmModel(std::string name, const HbmConfig& cfg)
    : m_name(std::move(name)),
      m_cfg(cfg),
      m_clock(m_name + ".clk", (cfg.validate(), cfg.spec.timing.tCK_ps)),
      m_mapper(cfg),
      m_units(cfg.spec.org.units()),
      m_burst_bytes(cfg.spec.org.burst_bytes()),
      m_latency(1000) {
  const std::uint32_t n = cfg.memory.stacks * m_units;
  for (std::uint32_t i = 0; i < n; ++i)
    m_ctrls.push_back(std::make_unique<ChannelController>(
        cfg, i % m_units, m_units, [this](std::uint32_t slot, std::uint64_t cycle) { burst_done(slot, cycle); }));
  m_scratch.assign(n, 0);
}

void HbmModel::set_command_observer(CommandFn fn) {
  for (std::uint32_t i = 0; i < m_ctrls.size(); ++i) {
    if (!fn) {
      m_ctrls[i]->set_command_observer(nullptr);
      continue;
    }
    m_ctrls[i]->set_command_observer(
        [fn, i, units = m_units](const DramCommand& c) { fn(i / units, i % units, c); });
  }
}

std::uint64_t HbmModel::min_ctrl_cycle() const {
  std::uint64_t m = kNever;
  for (const auto& c : m_ctrls) m = std::min(m, c->next_cycle());
  return m;
}

Time HbmModel::next_event_time() const {
  const Time t = m_next_cycle == kNever ? kNever : m_clock.edge(m_next_cycle);
  return m_done.empty() ? t : std::min(t, m_done.top().at);
}

void HbmModel::burst_done(std::uint32_t slot, std::uint64_t cycle) {
  Slot& s = m_slots[slot];
  s.last_cycle = std::max(s.last_cycle, cycle);
  if (--s.bursts_left == 0) m_done.push({m_clock.edge(s.last_cycle), m_done_seq++, slot});
}

void HbmModel::advance_to(Time now) {
  // Completions and controller cycles in time order, completions first on a
  // tie, so a requester answered at t may send again at t.
  for (;;) {
    const Time t_step = m_next_cycle == kNever ? kNever : m_clock.edge(m_next_cycle);
    const Time t_done = m_done.empty() ? kNever : m_done.top().at;
    if (t_done <= now && t_done <= t_step) {
      const Done d = m_done.top();
      m_done.pop();
      Slot& s = m_slots[d.slot];
      s.resp.complete = d.at;
      m_latency.add(d.at - s.resp.accept);
      MemResponse resp = std::move(s.resp);
      m_free.push_back(d.slot);
      complete(resp);
      continue;
    }
    if (t_step > now) break;
    const std::uint64_t c = m_next_cycle;
    for (auto& ctrl : m_ctrls)
      if (ctrl->next_cycle() == c) ctrl->step(c);
    m_next_cycle = min_ctrl_cycle();
  }
}

bool HbmModel::can_accept(const MemRequest& req) const {
  if (req.bytes == 0) return true;
  const std::uint64_t first = req.addr / m_burst_bytes, last = (req.addr + req.bytes - 1) / m_burst_bytes;
  bool ok = true;
  auto& touched = m_touched;
  touched.clear();
  for (std::uint64_t b = first; b <= last && ok; ++b) {
    const std::uint32_t i = ctrl_index(m_mapper.map(b * m_burst_bytes));
    if (m_scratch[i]++ == 0) touched.push_back(i);
    const auto& cc = m_cfg.controller;
    const std::uint32_t depth = req.write ? cc.write_queue : cc.read_queue;
    if (m_scratch[i] > depth)
      throw std::invalid_argument(m_name + ": request " + std::to_string(req.id) + " of " + std::to_string(req.bytes) +
                                  " bytes needs more than " + std::to_string(depth) +
                                  " bursts on one pseudo-channel; split it into smaller requests");
    if (!m_ctrls[i]->can_accept(req.write)) ok = false;
  }
  for (auto i : touched) m_scratch[i] = 0;
  return ok;
}

bool HbmModel::send(const MemRequest& req, Time now) {
  if (req.write && req.data.size() != req.bytes)
    throw std::invalid_argument(m_name + ": write request " + std::to_string(req.id) + " carries " +
                                std::to_string(req.data.size()) + " bytes, expected " + std::to_string(req.bytes));
  if (!can_accept(req)) return false;
  std::uint32_t slot;
  if (m_free.empty()) {
    slot = static_cast<std::uint32_t>(m_slots.size());
    m_slots.emplace_back();
  } else {
    slot = m_free.back();
    m_free.pop_back();
  }
  Slot& s = m_slots[slot];
  s.resp = MemResponse{};
  s.resp.id = req.id;
  s.resp.addr = req.addr;
  s.resp.bytes = req.bytes;
  s.resp.write = req.write;
  s.resp.source = req.source;
  s.resp.issue = req.issue;
  s.resp.accept = now;
  if (req.write) {
    m_store.write_masked(req.addr, req.data, req.byte_enable);
    ++s_writes;
    s_bytes_written += req.bytes;
  } else {
    s.resp.data = m_store.read(req.addr, req.bytes);
    ++s_reads;
    s_bytes_read += req.bytes;
  }
  const std::uint64_t cycle = m_clock.cycle_at_or_after(now);
  s.last_cycle = cycle;
  if (req.bytes == 0) {  // nothing to transfer: completes at the next edge
    m_done.push({m_clock.edge(cycle), m_done_seq++, slot});
    return true;
  }
  const std::uint64_t first = req.addr / m_burst_bytes, last = (req.addr + req.bytes - 1) / m_burst_bytes;
  s.bursts_left = static_cast<std::uint32_t>(last - first + 1);
  for (std::uint64_t b = first; b <= last; ++b) {
    const HbmLocation l = m_mapper.map(b * m_burst_bytes);
    HbmBurst burst;
    burst.tag = slot;
    burst.bg = l.bg;
    burst.bank = l.bank;
    burst.row = l.row;
    burst.col = l.col;
    burst.write = req.write;
    m_ctrls[ctrl_index(l)]->enqueue(burst, cycle);
  }
  m_next_cycle = min_ctrl_cycle();
  return true;
}

void HbmModel::finish(Time now) {
  const std::uint64_t c = now < m_clock.phase() ? 0 : (now - m_clock.phase()) / m_clock.period();
  for (auto& ctrl : m_ctrls) ctrl->finish(c);
}

std::vector<TimingViolation> HbmModel::violations() const {
  std::vector<TimingViolation> all;
  for (const auto& c : m_ctrls)
    if (c->checker()) all.insert(all.end(), c->checker()->violations().begin(), c->checker()->violations().end());
  return all;
}

void HbmModel::backdoor_write(std::uint64_t addr, std::span<const std::uint8_t> data) { m_store.write(addr, data); }

void HbmModel::backdoor_read(std::uint64_t addr, std::span<std::uint8_t> out) const { m_store.read(addr, out); }

}  // namespace mxc
