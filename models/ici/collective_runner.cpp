#include "models/ici/collective_runner.h"

#include <algorithm>
#include <stdexcept>

namespace mxc::ici {

namespace {
constexpr unsigned kStepBits = 40;
}

CollectiveRunner::CollectiveRunner(Fabric& fabric, const Topology& topo)
    : m_fabric(fabric), m_topo(topo), m_groups(topo) {
  if (fabric.num_chips() != topo.num_chips())
    throw std::invalid_argument("collective: fabric has " + std::to_string(fabric.num_chips()) +
                                " chips, topology " + std::to_string(topo.num_chips()));
}

std::uint32_t CollectiveRunner::pieces(std::uint64_t bytes) const {
  return bytes <= m_max_msg ? 1u : static_cast<std::uint32_t>((bytes + m_max_msg - 1) / m_max_msg);
}

CollectiveRun CollectiveRunner::run(const Schedule& s, Time start, const ProgressReport& progress) {
  const std::uint32_t chips = m_topo.num_chips();
  const auto streams = static_cast<std::uint32_t>(s.streams.size());
  m_sched = &s;
  m_cur.assign(static_cast<std::size_t>(chips) * streams, Cursor{});
  m_pending.assign(chips, {});
  m_dirty.clear();
  m_is_dirty.assign(chips, false);
  m_inbox.clear();
  m_next_id.assign(chips, 0);
  m_run = CollectiveRun{};
  m_run.start_ps = m_run.end_ps = start;
  m_cursors_left = 0;
  m_fabric.set_delivery([this](const IciPacket& p) { m_inbox.push_back(p); });
  // However the run ends (done, a deadlock, a stop), the fabric no longer delivers to this runner.
  struct Release {
    Fabric& f;
    ~Release() { f.set_delivery(nullptr); }
  } release{m_fabric};

  for (std::uint32_t c = 0; c < chips; ++c)
    for (std::uint32_t st = 0; st < streams; ++st) {
      Cursor& cur = m_cur[static_cast<std::size_t>(c) * streams + st];
      if (s.streams[st].phases.empty()) {
        cur.done = true;
        continue;
      }
      ++m_cursors_left;
      begin_step(c, st);
    }
  flush(start);
  ProgressTicker<> ticker(progress);
  while (m_cursors_left > 0) {
    const Time t = m_fabric.next_event_time();
    if (ticker.tick(t)) throw LoopStopped(t);
    if (t == kNever) {
      throw CollectiveDeadlock("collective " + s.name + ": the fabric went idle with " +
                                   std::to_string(m_cursors_left) + " chip streams unfinished (deadlock?)",
                               m_cursors_left, m_run);
    }
    m_fabric.advance_to(t);
    for (const IciPacket& p : m_inbox) {
      // A tick per message too: with every chip in step, one event time delivers one to each
      // chip, and a look every 4096 event times came minutes apart on the largest fabrics.
      if (ticker.tick(t)) throw LoopStopped(t);
      m_run.end_ps = std::max(m_run.end_ps, p.deliver);
      const auto st = static_cast<std::uint32_t>(p.addr >> kStepBits);
      const auto g = static_cast<std::uint32_t>(p.addr & ((1ull << kStepBits) - 1));
      if (p.dst >= chips || st >= streams) throw std::logic_error("collective: message with a bad tag");
      ++m_cur[static_cast<std::size_t>(p.dst) * streams + st].recv[g];
      check_step(p.dst, st);
    }
    m_inbox.clear();
    flush(t);
  }
  return m_run;
}

void CollectiveRunner::begin_step(std::uint32_t chip, std::uint32_t stream) {
  const Cursor& cur = m_cur[static_cast<std::size_t>(chip) * m_sched->streams.size() + stream];
  const Phase& ph = m_sched->streams[stream].phases[cur.phase];
  std::vector<std::uint32_t> peers;
  m_groups.peers(chip, ph, cur.step, peers);
  const std::uint64_t tag = (static_cast<std::uint64_t>(stream) << kStepBits) | cur.g;
  const std::uint32_t n = pieces(ph.step_bytes);
  for (std::uint32_t dst : peers) {
    std::uint64_t left = ph.step_bytes;
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint64_t b = std::min(left, m_max_msg);
      m_pending[chip].push_back(Pending{dst, b, tag});
      left -= b;
    }
  }
  if (!m_pending[chip].empty() && !m_is_dirty[chip]) {
    m_is_dirty[chip] = true;
    m_dirty.push_back(chip);
  }
  check_step(chip, stream);
}

void CollectiveRunner::check_step(std::uint32_t chip, std::uint32_t stream) {
  Cursor& cur = m_cur[static_cast<std::size_t>(chip) * m_sched->streams.size() + stream];
  if (cur.done) return;
  const auto& phases = m_sched->streams[stream].phases;
  const Phase& ph = phases[cur.phase];
  const auto it = cur.recv.find(cur.g);
  const std::uint32_t need = m_groups.expected(ph) * pieces(ph.step_bytes);
  if (it == cur.recv.end() || it->second < need) return;
  cur.recv.erase(it);
  ++cur.g;
  if (++cur.step == ph.steps) {
    cur.step = 0;
    if (++cur.phase == phases.size()) {
      cur.done = true;
      --m_cursors_left;
      return;
    }
  }
  begin_step(chip, stream);  // checks again: the next step's inputs may be here already
}

void CollectiveRunner::flush(Time now) {
  std::size_t keep = 0;
  for (std::size_t i = 0; i < m_dirty.size(); ++i) {
    const std::uint32_t chip = m_dirty[i];
    auto& q = m_pending[chip];
    while (!q.empty()) {
      IciPacket p;
      p.id = m_next_id[chip];
      p.src = chip;
      p.dst = q.front().dst;
      p.bytes = static_cast<std::uint32_t>(q.front().bytes);
      p.addr = q.front().tag;
      p.last = true;
      if (!m_fabric.inject(p, now)) break;
      ++m_next_id[chip];
      ++m_run.messages;
      m_run.bytes_sent += p.bytes;
      q.pop_front();
    }
    if (q.empty())
      m_is_dirty[chip] = false;
    else
      m_dirty[keep++] = chip;
  }
  m_dirty.resize(keep);
}

}  // namespace mxc::ici
