#include "models/hbm/hbm_model.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/core/hex.h"
#include "models/hbm/config_loader.h"

namespace mxc::hbm {

namespace {
MemoryConfig checked(MemoryConfig cfg) {
  validate(cfg);
  return cfg;
}
/// The last byte a request touches (a request of 0 bytes is taken as 1).
/// HbmModel::check_request has made sure it does not pass 2^64.
std::uint64_t last_byte(std::uint64_t addr, std::uint32_t bytes) { return addr + (std::max<std::uint32_t>(bytes, 1) - 1); }
}  // namespace

HbmModel::HbmModel(std::string name, MemoryConfig cfg)
    : m_name(std::move(name)),
      m_cfg(checked(std::move(cfg))),
      m_clock(m_name + ".ck", m_cfg.device.t.tCK_ps),
      m_mapper(m_cfg.device.org, m_cfg.controller.address_mapping, m_cfg.controller.xor_bank_hash),
      m_capacity(m_cfg.device.org.stack_bytes() * m_cfg.stacks) {
  const std::uint32_t n = m_cfg.stacks * m_cfg.device.org.pcs();
  if (m_cfg.check_timing) {
    m_checker = std::make_unique<TimingChecker>(m_cfg.device, n, m_cfg.controller.dual_command,
                                                m_cfg.controller.shared_command_bus);
    m_checker->set_check_refresh(m_cfg.controller.refresh != RefreshMode::kNone);
  }
  const bool shared = m_cfg.controller.shared_command_bus;
  m_group = shared ? m_cfg.device.org.pseudo_channels : 1;
  const std::uint32_t groups = n / m_group;
  if (shared) m_buses.resize(groups);
  for (std::uint32_t i = 0; i < n; ++i)
    m_pcs.push_back(std::make_unique<PcController>(i, m_cfg, m_sink, m_checker.get(),
                                                   shared ? &m_buses[i / m_group] : nullptr));
  for (auto& pc : m_pcs) pc->set_observer(&m_observer);
  m_count_r.assign(n, 0);
  m_group_next.assign(groups, kNoCycle);
  m_busy.assign((groups + 63) / 64, 0);
  m_count_w.assign(n, 0);
  m_min_done = std::min(m_pcs[0]->done_cycles(false), m_pcs[0]->done_cycles(true));
}

HbmModel::~HbmModel() = default;

std::uint64_t HbmModel::floor_cycle(Time t) const { return t / m_clock.period(); }

void HbmModel::split(std::uint64_t addr, std::uint32_t bytes, std::vector<BurstTarget>& out) const {
  if (m_cfg.stacks > 1) return split_stacks(addr, bytes, out);
  // One stack: every interleave block is local as it is, so the bursts are
  // one run (and cost no divisions by the block size).
  const std::uint32_t shift = m_mapper.offset_bits();  // bursts are 1 << shift bytes
  const std::uint64_t first = addr >> shift, n = ((addr + std::max<std::uint32_t>(bytes, 1) - 1) >> shift) - first + 1;
  // Every element is overwritten below: no clear() first, so a request of
  // the last one's size zeroes nothing.
  out.resize(n);
  m_mapper.decode_run(first << shift, static_cast<std::uint32_t>(n), out.data());
}

void HbmModel::split_stacks(std::uint64_t addr, std::uint32_t bytes, std::vector<BurstTarget>& out) const {
  const std::uint64_t bb = m_cfg.device.org.burst_bytes();
  const std::uint64_t il = m_cfg.stack_interleave_bytes;  // a multiple of bb (validated)
  const std::uint32_t per_stack = m_cfg.device.org.pcs();
  // Inclusive bounds: a request may end at the top of the address space,
  // where an exclusive end would wrap to 0.
  const std::uint64_t last = last_byte(addr, bytes);
  // One run of consecutive stack-local bursts per interleave block.
  out.clear();
  for (std::uint64_t a = addr / bb * bb;;) {
    const std::uint64_t block = a / il;
    const auto stack = static_cast<std::uint32_t>(block % m_cfg.stacks);
    const std::uint64_t local = block / m_cfg.stacks * il + a % il;
    const std::uint64_t room = il - 1 - a % il;  // bytes of the block after a's
    const std::uint64_t run_last = last - a <= room ? last : a + room;
    const auto n = static_cast<std::uint32_t>((run_last - a) / bb + 1);
    const std::size_t first = out.size();
    out.resize(first + n);
    BurstTarget* const run = out.data() + first;
    m_mapper.decode_run(local, n, run);
    for (std::uint32_t i = 0; i < n; ++i) run[i].pc += stack * per_stack;
    if (run_last == last) break;
    a = run_last + 1;  // the next block's first byte
  }
}

template <class Fits>
std::uint32_t HbmModel::first_unfit(bool write, Fits fits) const {
  auto& count = write ? m_count_w : m_count_r;
  auto unfit = static_cast<std::uint32_t>(m_pcs.size());
  for (const BurstTarget& t : m_scratch) ++count[t.pc];
  for (const BurstTarget& t : m_scratch) {
    if (count[t.pc] && unfit == m_pcs.size() && !fits(t.pc, count[t.pc])) unfit = t.pc;
    count[t.pc] = 0;  // counted once, at its first burst; and left zero for the next call
  }
  return unfit;
}

std::uint32_t HbmModel::lacking_room(const MemRequest& req) const {
  // A refused request is usually offered again as it is: split it once.
  if (!m_scratch_valid || req.addr != m_scratch_addr || req.bytes != m_scratch_bytes) {
    check_request(req);
    const std::uint32_t shift = m_mapper.offset_bits();  // bursts are 1 << shift bytes
    if (m_cfg.stacks == 1 && req.addr >> shift == last_byte(req.addr, req.bytes) >> shift) {
      // One burst on one stack (a tile's request): split's run of one,
      // without its set-up.
      m_scratch.resize(1);
      m_scratch[0] = m_mapper.decode_one(req.addr, m_high);
    } else {
      split(req.addr, req.bytes, m_scratch);
    }
    m_scratch_addr = req.addr;
    m_scratch_bytes = req.bytes;
    m_scratch_valid = true;
    const std::uint32_t first = m_scratch[0].pc;
    m_scratch_one_pc =
        std::all_of(m_scratch.begin(), m_scratch.end(), [&](const BurstTarget& t) { return t.pc == first; });
  }
  // All bursts in one pseudo-channel (a tile's one-burst request, a 256 B
  // request on the default mapping): one queue's room, nothing to count.
  if (m_scratch_one_pc) {
    const std::uint32_t pc = m_scratch[0].pc;
    const auto n = static_cast<std::uint32_t>(m_scratch.size());
    return m_pcs[pc]->can_accept(req.write, n) ? static_cast<std::uint32_t>(m_pcs.size()) : pc;
  }
  return first_unfit(req.write, [&](std::uint32_t pc, std::uint32_t n) { return m_pcs[pc]->can_accept(req.write, n); });
}

void HbmModel::check_fits(const MemRequest& req) const {
  const auto holds = [&](std::uint32_t pc) { return m_pcs[pc]->capacity(req.write); };
  const std::uint32_t pc = first_unfit(req.write, [&](std::uint32_t p, std::uint32_t n) { return n <= holds(p); });
  if (pc == m_pcs.size()) return;
  const auto n = std::count_if(m_scratch.begin(), m_scratch.end(), [&](const BurstTarget& t) { return t.pc == pc; });
  throw std::invalid_argument(m_name + ": request " + std::to_string(req.id) + " needs " + std::to_string(n) +
                              " bursts in pseudo-channel " + std::to_string(pc) + " but its " +
                              (req.write ? "write" : "read") + " queue holds " + std::to_string(holds(pc)) +
                              "; split the request or deepen the queue");
}

void HbmModel::check_request(const MemRequest& req) const {
  if (req.bytes > 1 && req.bytes - 1 > ~req.addr)
    throw std::invalid_argument(m_name + ": request " + std::to_string(req.id) + " at " + hex(req.addr) + " of " +
                                std::to_string(req.bytes) + " bytes runs past the end of the 64-bit address space");
  // A request of more bursts than all the queues hold could never be
  // accepted; found before splitting it, which would take memory in
  // proportion to its size.
  const std::uint64_t bb = m_cfg.device.org.burst_bytes();
  const std::uint64_t room = std::uint64_t{m_pcs[0]->capacity(req.write)} * m_pcs.size();
  if (req.bytes > room * bb) [[unlikely]] {  // more than `room` bursts, however aligned
    const std::uint64_t bursts = (std::uint64_t{req.bytes} + bb - 1) / bb;  // the fewest it can take
    throw std::invalid_argument(m_name + ": request " + std::to_string(req.id) + " of " + std::to_string(req.bytes) +
                                " bytes needs at least " + std::to_string(bursts) + " bursts but the " +
                                (req.write ? "write" : "read") + " queues of all " + std::to_string(m_pcs.size()) +
                                " pseudo-channels hold " + std::to_string(room) +
                                "; split the request or deepen the queues");
  }
}

bool HbmModel::can_accept(const MemRequest& req) const { return lacking_room(req) == m_pcs.size(); }

bool HbmModel::send(const MemRequest& req, Time now) {
  if (req.bytes == 0) throw std::invalid_argument(m_name + ": request " + std::to_string(req.id) + " has 0 bytes");
  if (req.write && req.data.size() != req.bytes)
    throw std::invalid_argument(m_name + ": write request " + std::to_string(req.id) + " carries " +
                                std::to_string(req.data.size()) + " bytes, expected " + std::to_string(req.bytes));
  // The controllers first step up to the cycle `now` falls in, as
  // advance_to(now) would: a kernel may offer a request at a clock edge
  // before it advances the memory to that edge, and the request must find
  // the same queues and be seen from the same cycle in either order.
  const std::uint64_t floor = floor_cycle(now);
  run_to(floor);
  if (const std::uint32_t full = lacking_room(req); full != m_pcs.size()) {
    m_refused_pc = full;
    m_refused_write = req.write;
    // Refuse, unless the request could never fit (a usage error): only one
    // of more bursts than a queue holds may not (the queues are all of one
    // depth).
    if (m_scratch.size() > m_pcs[full]->capacity(req.write)) check_fits(req);
    return false;
  }
  s_beyond_capacity += req.addr >= m_capacity || req.bytes > m_capacity - req.addr;
  std::uint32_t slot;
  if (m_free.empty()) {
    slot = static_cast<std::uint32_t>(m_slots.size());
    m_slots.emplace_back();
  } else {
    slot = m_free.back();
    m_free.pop_back();
  }
  Pending& p = m_slots[slot];
  m_sink.start(slot, static_cast<std::uint32_t>(m_scratch.size()));
  // Every field is set here (the slot's last data buffer is reused), so
  // the response is not reset first.
  MemResponse& r = p.resp;
  r.id = req.id;
  r.addr = req.addr;
  r.bytes = req.bytes;
  r.write = req.write;
  r.source = req.source;
  r.issue = req.issue;
  r.accept = now;
  r.complete = m_seq++;  // acceptance order until the real time is known
  if (!timing_only() && !req.write) {
    // The read overwrites every byte: the buffer's old contents need not
    // be cleared first (resize to the same size writes nothing).
    r.data.resize(req.bytes);
    m_store.read(req.addr, std::span<std::uint8_t>(r.data));
  } else {
    r.data.clear();
    if (!timing_only()) m_store.write_masked(req.addr, req.data, req.byte_enable);
  }

  // The first edge at or after now (m_clock.cycle_at_or_after: its phase
  // is 0) from the one at or before, with one division.
  const std::uint64_t cycle = floor + (m_clock.edge(floor) != now);
  // One run per stretch of bursts to the same pseudo-channel (a 256 B
  // request is usually one).
  const BurstTarget* const end = m_scratch.data() + m_scratch.size();
  for (const BurstTarget* t = m_scratch.data(); t != end;) {
    const std::uint32_t id = t->pc;
    const BurstTarget* run_end = m_scratch_one_pc ? end : t + 1;
    while (run_end != end && run_end->pc == id) ++run_end;
    PcController& pc = *m_pcs[id];
    const std::uint32_t g = group_of(id);
    // A sleeping group first replays the refreshes it skipped (a busy one
    // has stepped its idle controllers' refreshes with the others).
    if (m_group_next[g] == kNoCycle) replay_idle_group(g, floor);
    // Not before a cycle another controller of the group has reached
    // (each controller already keeps its bursts after its own).
    std::uint64_t at = cycle;
    if (m_group > 1)
      for (std::uint32_t i = g * m_group; i < (g + 1) * m_group; ++i) at = std::max(at, m_pcs[i]->clock());
    pc.enqueue_run(slot, t, run_end, req.write, at, floor + 1, m_mapper.column_run());
    set_group_next(g, group_next(g));  // a cycle: the controller has bursts now
    m_pc_min = std::min(m_pc_min, m_group_next[g]);  // enqueue only brings a group's next cycle forward
    t = run_end;
  }
  update_next_event();
  if (m_checker && m_checker->violation_count())
    throw std::logic_error(m_name + ": timing violation: " + m_checker->violations().front());
  return true;
}

std::uint64_t HbmModel::next_group_cycle() const {
  std::uint64_t n = kNoCycle;
  for (const std::uint64_t c : m_group_next) n = std::min(n, c);
  return n;
}

void HbmModel::step_in_turn(const std::unique_ptr<PcController>* pcs, std::uint64_t n) {
  // In cycle n the group's controllers take the buses in turn, starting
  // with number n mod group: ties go round, so two streams that meet on
  // the column bus settle into alternate cycles, each keeping its own.
  for (std::uint32_t k = 0; k < m_group; ++k) {
    PcController& pc = *pcs[(n + k) % m_group];
    if (pc.event_cycle() == n) pc.step_next();
  }
}

void HbmModel::run_group(std::uint32_t g, std::uint64_t limit) {
  if (m_group == 1) return m_pcs[g]->run_while_busy(limit);
  const std::unique_ptr<PcController>* pcs = &m_pcs[g * m_group];
  if (m_group == 2) {  // every preset: one step per pass, the controller chosen by a select
    PcController* const pair[2] = {pcs[0].get(), pcs[1].get()};
    // Only the controller that stepped can have gone idle: each keeps its
    // flag, read again after its own steps only.
    bool busy[2] = {pair[0]->busy(), pair[1]->busy()};
    while (busy[0] | busy[1]) {
      const std::uint64_t na = pair[0]->event_cycle(), nb = pair[1]->event_cycle();
      if (std::min(na, nb) > limit) return;
      // b first when its event is earlier, or in the same cycle when that
      // cycle is odd (step_in_turn's order); by index, not a branch.
      const bool second = (nb < na) | ((nb == na) & static_cast<bool>(na & 1));
      pair[second]->step_next();
      busy[second] = pair[second]->busy();
    }
    return;
  }
  for (std::uint64_t n; (n = group_next(g)) <= limit;) step_in_turn(pcs, n);
}

void HbmModel::replay_idle_group(std::uint32_t g, std::uint64_t cycle) {
  const std::unique_ptr<PcController>* pcs = &m_pcs[g * m_group];
  // Idle controllers' refreshes fall due in the same cycles and issue in
  // turn: once all of them may, they count most of them at once (each
  // knowing its turn); the rest are stepped in order. (A group of one is
  // a controller with buses of its own.)
  for (;;) {
    std::uint64_t n = kNoCycle;
    for (std::uint32_t i = 0; i < m_group; ++i) n = std::min(n, pcs[i]->event_cycle());
    if (n > cycle) return;
    bool skip = true;
    for (std::uint32_t i = 0; i < m_group && skip; ++i) skip = pcs[i]->can_skip_idle(cycle);
    if (skip) {
      for (std::uint32_t i = 0; i < m_group; ++i) pcs[i]->skip_idle(cycle);
      continue;
    }
    step_in_turn(pcs, n);
  }
}

void HbmModel::update_next_event() {
  const Time t = m_pc_min == kNoCycle ? kNever : m_clock.edge(m_pc_min);
  m_next_event = m_finished.empty() ? t : std::min(t, m_finished.top().at);
}

Time HbmModel::earliest_completion() const {
  // A request completes with its last burst's data, and no burst issues
  // before its controller's next cycle.
  const Time t = m_pc_min == kNoCycle ? kNever : m_clock.edge(m_pc_min + m_min_done);
  return m_finished.empty() ? t : std::min(t, m_finished.top().at);
}

void HbmModel::deliver_until(Time now) {
  while (!m_finished.empty() && m_finished.top().at <= now) {
    const std::uint32_t slot = m_finished.top().slot;
    m_finished.pop();
    MemResponse& r = m_slots[slot].resp;
    m_latency.add(r.complete - std::min(r.issue, r.accept));
    if (r.write) {
      ++s_writes;
      s_bytes_written += r.bytes;
    } else {
      ++s_reads;
      s_bytes_read += r.bytes;
    }
    m_free.push_back(slot);
    complete(r);
  }
}

void HbmModel::run_controllers(std::uint64_t limit) {
  // Groups (channels) do not interact until their completions are
  // delivered (burst_issued only records a completion time), so without an
  // observer, which sees the commands in cycle order, each one runs to the
  // limit on its own. Only busy groups have a next cycle (m_busy).
  if (!m_observer) {
    std::uint64_t first = kNoCycle;
    // bank_set.h's loop over set bits serves groups as well as banks.
    for_each_bank_of(m_busy.size(), [&](std::size_t w) { return m_busy[w]; }, [&](std::uint32_t g) {
      std::uint64_t next = m_group_next[g];
      if (next <= limit) {
        run_group(g, limit);
        m_group_next[g] = next = group_next(g);
        if (next == kNoCycle) m_busy[g / 64] &= ~(std::uint64_t{1} << (g % 64));
      }
      first = std::min(first, next);
      return true;
    });
    m_pc_min = first;  // all beyond the limit now
    return;
  }
  for (;;) {
    const std::uint64_t n = m_pc_min = next_group_cycle();
    if (n > limit) return;
    for (std::uint32_t g = 0; g < m_group_next.size(); ++g) {
      if (m_group_next[g] != n) continue;
      run_group(g, n);
      set_group_next(g, group_next(g));
    }
  }
}

void HbmModel::run_to(std::uint64_t limit) {
  // m_pc_min is never above the controllers' minimum: above the limit, no
  // controller has anything to do.
  if (m_pc_min > limit) return;
  run_controllers(limit);
  if (!m_sink.finished().empty()) collect_finished();  // most runs finish no request
}

void HbmModel::advance_to(Time now) {
  // Controllers in cycle order, then the completions due: a completion is
  // known before its time (at its last burst's issue), so none is missed.
  run_to(floor_cycle(now));
  deliver_until(now);
  update_next_event();
  if (m_checker && m_checker->violation_count())
    throw std::logic_error(m_name + ": timing violation: " + m_checker->violations().front());
}

Time HbmModel::advance_until_room() {
  PcController& pc = *m_pcs[m_refused_pc];
  const std::uint32_t g = group_of(m_refused_pc);
  const std::uint64_t stamp = refusal_stamp();
  Time t = 0;
  while (pc.busy() && refusal_stamp() == stamp) {
    const std::uint64_t c = group_next(g);
    t = m_clock.edge(c);
    // Without an observer (which sees the commands in cycle order) that
    // controller's group runs ahead alone, a cycle at a time, and the
    // others catch up below in one pass (groups do not interact).
    if (m_observer) advance_to(t);
    else run_group(g, c);
  }
  set_group_next(g, group_next(g));
  if (t) advance_to(t);
  return t;
}

void HbmModel::collect_finished() {
  for (const std::uint32_t slot : m_sink.finished()) {
    MemResponse& r = m_slots[slot].resp;
    const std::uint64_t seq = r.complete;
    r.complete = m_clock.edge(m_sink.done_cycle(slot));
    m_finished.push({r.complete, seq, slot});
  }
  m_sink.clear_finished();
}

void HbmModel::finish(Time now) {
  advance_to(now);
  const std::uint64_t limit = floor_cycle(now);
  for (std::uint32_t g = 0; g < m_group_next.size(); ++g) {
    if (group_next(g) == kNoCycle) replay_idle_group(g, limit);
    set_group_next(g, group_next(g));
  }
  m_pc_min = next_group_cycle();
  update_next_event();
  if (m_checker) {
    m_checker->finish(limit);
    if (m_checker->violation_count())
      throw std::logic_error(m_name + ": timing violation: " + m_checker->violations().front());
  }
}

PcStats HbmModel::total_stats() const {
  PcStats t;
  for (const auto& pc : m_pcs) t.add(pc->stats());
  return t;
}

std::uint64_t HbmModel::refreshes_owed() const {
  std::uint64_t n = 0;
  for (const auto& pc : m_pcs) n += pc->refreshes_owed();
  return n;
}

std::uint64_t HbmModel::streaming_steps() const {
  std::uint64_t n = 0;
  for (const auto& pc : m_pcs) n += pc->streaming_steps();
  return n;
}

std::uint64_t HbmModel::planned_steps() const {
  std::uint64_t n = 0;
  for (const auto& pc : m_pcs) n += pc->planned_steps();
  return n;
}

std::uint64_t HbmModel::skipped_refreshes() const {
  std::uint64_t n = 0;
  for (const auto& pc : m_pcs) n += pc->skipped_refreshes();
  return n;
}

void HbmModel::backdoor_write(std::uint64_t addr, std::span<const std::uint8_t> data) { m_store.write(addr, data); }

void HbmModel::backdoor_read(std::uint64_t addr, std::span<std::uint8_t> out) const { m_store.read(addr, out); }

void HbmModel::set_command_observer(PcController::CommandObserver fn) {
  m_observer = std::move(fn);
  for (auto& pc : m_pcs) pc->set_observer(&m_observer);
}

}  // namespace mxc::hbm
