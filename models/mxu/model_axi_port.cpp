#include "models/mxu/model_axi_port.h"

#include <algorithm>
#include <stdexcept>

namespace mxc {

ModelAxiPort::ModelAxiPort(ModelAxiConfig cfg, MemoryTarget& mem, const ClockDomain& clock)
    : m_cfg(std::move(cfg)), m_mem(mem), m_clock(clock) {
  if (m_cfg.beat_bytes == 0 || (m_cfg.beat_bytes & (m_cfg.beat_bytes - 1)) != 0)
    throw std::invalid_argument("model axi port: beat_bytes must be a power of two");
  m_mem.set_completion([this](const MemResponse& r) { on_response(r); });
}

std::uint64_t ModelAxiPort::pick(const std::vector<Responded>& responded, const ById& by_id,
                                 std::uint64_t cycle) const {
  // The oldest ready burst: the transactor with random_interleave off. A
  // responded write has all its beats (its request is made at the last one).
  std::uint64_t best = kNone;
  for (const Responded& r : responded) {
    if (r.serial >= best || r.visible > cycle) continue;
    if (by_id[r.id].head != r.serial) continue;  // beats of one ID in order
    best = r.serial;
  }
  return best;
}

std::uint64_t ModelAxiPort::add_burst(bool write, std::uint32_t id, std::uint64_t addr, std::uint32_t beats) {
  if (m_next_serial - m_base == m_slots.size()) {  // full: double the ring, same serial -> slot rule
    std::vector<Burst> grown(m_slots.size() * 2);
    const std::uint64_t mask = grown.size() - 1;
    for (std::uint64_t s = m_base; s < m_next_serial; ++s) grown[s & mask] = std::move(m_slots[s & m_slot_mask]);
    m_slots = std::move(grown);
    m_slot_mask = mask;
  }
  const std::uint64_t serial = m_next_serial++;
  Burst& b = burst(serial);
  b.write = write;
  b.id = id;
  b.addr = addr;
  b.beats = beats;
  b.beats_done = 0;
  b.responded = false;
  b.visible = kNone;
  b.beat_bytes.clear();  // keeps its capacity
  b.live = true;
  b.next_on_id = kNone;
  ById& by_id = write ? m_writes_by_id : m_reads_by_id;
  if (by_id.size() <= id) by_id.resize(id + 1);
  IdQueue& q = by_id[id];
  if (q.head == kNone) {
    q.head = serial;
  } else {
    burst(q.tail).next_on_id = serial;
    if (!write) ++m_shared_id_reads;
  }
  q.tail = serial;
  ++m_live;
  return serial;
}

void ModelAxiPort::erase_burst(std::uint64_t serial) {
  burst(serial).live = false;
  --m_live;
  while (m_base < m_next_serial && !burst(m_base).live) ++m_base;
}

void ModelAxiPort::retire(std::vector<Responded>& responded, std::uint64_t serial) {
  for (std::size_t i = 0; i < responded.size(); ++i)
    if (responded[i].serial == serial) {
      responded[i] = responded.back();
      responded.pop_back();
      return;
    }
}

void ModelAxiPort::drive(std::uint64_t cycle, ModelAxiOut& out) {
  out.arready = m_open_reads < m_cfg.max_read_bursts;
  out.awready = m_open_writes < m_cfg.max_write_bursts;
  out.wready = !m_w_order.empty() || m_early_w < m_cfg.max_early_w_beats;
  if (m_r_current == kNone) {
    m_r_current = pick(m_responded_reads, m_reads_by_id, cycle);
    if (m_r_current != kNone) m_read_activity = true;
  }
  out.rvalid = m_r_current != kNone;
  if (out.rvalid) {
    const Burst& b = burst(m_r_current);
    out.rid = b.id;
    out.rlast = b.beats_done + 1 == b.beats;
  } else {
    out.rid = 0;
    out.rlast = false;
  }
  if (m_b_current == kNone) {
    m_b_current = pick(m_responded_writes, m_writes_by_id, cycle);
    if (m_b_current != kNone) m_activity = true;
  }
  out.bvalid = m_b_current != kNone;
  out.bid = out.bvalid ? burst(m_b_current).id : 0;
}

void ModelAxiPort::make_request(std::uint64_t serial, Time now) {
  const Burst& b = burst(serial);
  const std::uint32_t bytes = b.beats * m_cfg.beat_bytes;
  // Built in place in its queue's reused slot: this runs once per burst.
  MemRequest& req = (b.write ? m_write_queue : m_read_queue).push_back();
  req.id = m_next_req;
  req.addr = b.addr;
  req.bytes = bytes;
  req.write = b.write;
  req.byte_enable.clear();
  if (b.write) {
    // No data in the model: zeros, with the byte mask the RTL's WSTRB implies.
    req.data.assign(bytes, 0);
    bool partial = false;
    for (std::uint16_t v : b.beat_bytes) partial = partial || v != m_cfg.beat_bytes;
    if (partial) {
      req.byte_enable.assign(bytes, false);
      // The model knows how many bytes of a beat WSTRB enables: the DMA's strobe is a prefix.
      for (std::uint32_t k = 0; k < b.beats; ++k)
        std::fill_n(req.byte_enable.begin() + std::ptrdiff_t{k} * m_cfg.beat_bytes, b.beat_bytes[k], true);
    }
  } else {
    req.data.clear();
  }
  req.source = m_cfg.source;
  req.issue = now;
  if (m_next_req - m_req_base == m_in_target.size()) {  // full: double, same id -> slot rule
    std::vector<std::uint64_t> grown(m_in_target.size() * 2, kNone);
    for (std::uint64_t r = m_req_base; r < m_next_req; ++r)
      grown[r & (grown.size() - 1)] = m_in_target[r & (m_in_target.size() - 1)];
    m_in_target = std::move(grown);
  }
  m_in_target[m_next_req & (m_in_target.size() - 1)] = serial;
  ++m_in_target_n;
  ++m_next_req;
}

void ModelAxiPort::take_w_beat(std::uint32_t bytes, Time now) {
  const std::uint64_t serial = m_w_order.front();
  Burst& b = burst(serial);
  b.beat_bytes.push_back(static_cast<std::uint16_t>(bytes));
  s_bytes_written += m_cfg.beat_bytes;  // the whole beat goes to memory, WSTRB masking some bytes
  if (++b.beats_done == b.beats) {
    m_w_order.pop_front();
    make_request(serial, now);
  }
}

void ModelAxiPort::take_w_beats(const std::uint16_t* bytes, std::size_t n) {
  if (n == 0) return;
  if (m_w_order.empty()) throw std::logic_error("model axi port: W beats without a burst");
  Burst& b = burst(m_w_order.front());
  if (b.beats_done + n >= b.beats) throw std::logic_error("model axi port: skipped W beats finish a burst");
  for (std::size_t i = 0; i < n; ++i) b.beat_bytes.push_back(bytes[i]);
  s_bytes_written += n * m_cfg.beat_bytes;
  b.beats_done += static_cast<std::uint32_t>(n);
}

void ModelAxiPort::on_edge(const ModelAxiIn& in, const ModelAxiOut& out, Time now) {
  if (in.ar && out.arready) {
    const std::uint64_t serial = add_burst(false, in.ax_id, in.ax_addr, in.ax_beats);
    ++m_open_reads;
    make_request(serial, now);
    m_activity = true;
  }
  if (in.aw && out.awready) {
    const std::uint64_t serial = add_burst(true, in.ax_id, in.ax_addr, in.ax_beats);
    m_w_order.push_back(serial);
    ++m_open_writes;
    while (m_early_w > 0 && !m_w_order.empty()) {
      take_w_beat(m_early_bytes.front(), now);
      m_early_bytes.pop_front();
      --m_early_w;
    }
    m_activity = true;
  }
  if (in.w && out.wready) {
    if (m_w_order.empty()) {
      m_early_bytes.push_back(static_cast<std::uint16_t>(in.w_bytes));
      ++m_early_w;
      m_activity = true;
    } else {
      // A beat that does not finish its burst changes nothing but the
      // burst's beat count (write_beat_only).
      const std::uint64_t requests = m_next_req;
      take_w_beat(in.w_bytes, now);
      if (m_next_req != requests) m_activity = true;
      else m_w_beat = true;
    }
  }
  if (out.rvalid && in.rready && m_r_current != kNone) {
    const std::uint64_t serial = m_r_current;
    Burst& b = burst(serial);
    s_bytes_read += m_cfg.beat_bytes;
    m_r_current = kNone;
    if (++b.beats_done == b.beats) finish_read(serial);
    m_read_activity = true;
  }
  if (out.bvalid && m_b_current != kNone) {  // BREADY is always high in the DMA
    pop_id(m_writes_by_id, burst(m_b_current).id);
    retire(m_responded_writes, m_b_current);
    erase_burst(m_b_current);
    --m_open_writes;
    m_b_current = kNone;
    m_activity = true;
  }
  if (!m_read_queue.empty() && m_mem.send(m_read_queue.front(), now)) {
    m_read_queue.pop_front();
    m_activity = true;
  }
  if (!m_write_queue.empty() && m_mem.send(m_write_queue.front(), now)) {
    m_write_queue.pop_front();
    m_activity = true;
  }
}

void ModelAxiPort::on_response(const MemResponse& r) {
  const std::uint64_t mask = m_in_target.size() - 1;
  if (r.id < m_req_base || r.id >= m_next_req || m_in_target[r.id & mask] == kNone)
    throw std::logic_error("model axi port: completion for unknown request " + std::to_string(r.id));
  const std::uint64_t it_serial = m_in_target[r.id & mask];
  m_in_target[r.id & mask] = kNone;
  --m_in_target_n;
  while (m_req_base < m_next_req && m_in_target[m_req_base & mask] == kNone) {
    ++m_req_base;
  }
  Burst& b = burst(it_serial);
  b.responded = true;
  // Seen by the next edge's drive(): the first edge after the completion time,
  // or at it when the memory runs first at equal times.
  std::uint64_t c = m_clock.cycle_at_or_after(r.complete);
  if (!m_cfg.memory_first && m_clock.edge(c) == r.complete) ++c;
  b.visible = c;
  (b.write ? m_responded_writes : m_responded_reads).push_back({it_serial, c, b.id});
  if (m_stream.on && !b.write) stream_arrival(it_serial, c);
}

std::uint64_t ModelAxiPort::next_write_visible_after(std::uint64_t cycle) const {
  std::uint64_t best = kNone;
  for (const Responded& r : m_responded_writes)
    if (r.visible > cycle && r.visible < best) best = r.visible;
  return best;
}

bool ModelAxiPort::begin_stream(std::uint64_t from, bool one_burst) {
  Stream& st = m_stream;
  st.on = false;
  st.one_burst = one_burst;
  st.from = st.end = from;
  st.pending.clear();
  if (m_shared_id_reads != 0) return false;
  if (one_burst) {
    // The chosen burst streams to its last beat, unless an older burst
    // becomes visible and is chosen instead.
    const std::uint64_t p = pick(m_responded_reads, m_reads_by_id, from);
    if (p == kNone) return false;
    const Burst& b = burst(p);
    st.serial = p;
    st.end = from + (b.beats - b.beats_done);
    for (const Responded& r : m_responded_reads)
      if (r.serial < p && r.visible > from) st.end = std::min(st.end, r.visible);
  } else {
    // Every burst will be drained and which one a beat belongs to changes
    // nothing but the order: the stream lasts while the beats visible so
    // far outnumber the cycles since `from`.
    for (const Responded& r : m_responded_reads) {
      const Burst& b = burst(r.serial);
      st.pending.push_back({r.visible, b.beats - b.beats_done});
    }
    std::sort(st.pending.begin(), st.pending.end(), Pending::earlier);
    st.absorb();
  }
  // A drain whose next beat is not known yet still sleeps: the completion
  // making it visible in cycle `from` arrives after this edge (the memory runs
  // after the tile at equal times) and extends the stream.
  st.on = st.end > from || !one_burst;
  return st.on;
}

void ModelAxiPort::stream_arrival(std::uint64_t serial, std::uint64_t visible) {
  Stream& st = m_stream;
  if (st.one_burst) {
    if (serial < st.serial) st.end = std::min(st.end, std::max(visible, st.from));
    return;
  }
  const Burst& b = burst(serial);
  const Pending n{visible, b.beats - b.beats_done};
  st.pending.insert(std::upper_bound(st.pending.begin(), st.pending.end(), n, Pending::earlier), n);
  st.absorb();
}

void ModelAxiPort::Stream::absorb() {
  std::size_t k = 0;
  for (; k < pending.size() && pending[k].visible <= end; ++k) end += pending[k].beats;
  pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(k));
}

bool ModelAxiPort::pop_id(ById& by_id, std::uint32_t id) {
  IdQueue& q = by_id[id];
  q.head = burst(q.head).next_on_id;
  if (q.head != kNone) return true;
  q.tail = kNone;
  return false;
}

void ModelAxiPort::finish_read(std::uint64_t serial) {
  const Burst& b = burst(serial);
  if (pop_id(m_reads_by_id, b.id)) --m_shared_id_reads;
  retire(m_responded_reads, serial);
  erase_burst(serial);
  --m_open_reads;
}

std::uint64_t ModelAxiPort::end_stream(std::uint64_t target) {
  Stream& st = m_stream;
  if (!st.on || target < st.from || target > st.end)
    throw std::logic_error("model axi port: R stream ended at cycle " + std::to_string(target) + " outside [" +
                           std::to_string(st.from) + ", " + std::to_string(st.end) + "]");
  st.on = false;
  const std::uint64_t n = target - st.from;
  s_bytes_read += n * m_cfg.beat_bytes;
  if (st.one_burst) {
    Burst& b = burst(st.serial);
    b.beats_done += static_cast<std::uint32_t>(n);
    if (b.beats_done != b.beats) return 0;
    const std::uint64_t freed = std::uint64_t{1} << b.id;
    finish_read(st.serial);
    return freed;
  }
  // The beats in the order pick() takes them: the oldest visible burst until
  // it ends or an older one becomes visible (each ID has one burst open).
  std::uint64_t freed = 0;
  std::uint64_t t = st.from;
  while (t < target) {
    std::uint64_t p = kNone, older = kNone;
    for (const Responded& r : m_responded_reads)
      if (r.visible <= t && r.serial < p) p = r.serial;
    if (p == kNone) throw std::logic_error("model axi port: no R beat visible in cycle " + std::to_string(t));
    for (const Responded& r : m_responded_reads)
      if (r.serial < p && r.visible > t) older = std::min(older, r.visible);
    Burst& b = burst(p);
    const std::uint64_t end = std::min({target, t + (b.beats - b.beats_done), older});
    b.beats_done += static_cast<std::uint32_t>(end - t);
    t = end;
    if (b.beats_done == b.beats) {
      freed |= std::uint64_t{1} << b.id;
      finish_read(p);
    }
  }
  return freed;
}

std::uint64_t ModelAxiPort::next_visible_after(std::uint64_t cycle) const {
  std::uint64_t best = kNone;
  for (const auto* list : {&m_responded_reads, &m_responded_writes})
    for (const Responded& r : *list) {
      const std::uint64_t v = r.visible;
      if (v > cycle && v < best) best = v;
    }
  return best;
}

}  // namespace mxc
