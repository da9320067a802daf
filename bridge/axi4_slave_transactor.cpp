#include "bridge/axi4_slave_transactor.h"

#include "bridge/axi4_protocol_error.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace mxc {

namespace {

constexpr std::uint64_t k4KiB = 4096;
// AxBURST: 0 FIXED, 1 INCR, 2 WRAP, 3 reserved.
constexpr std::uint32_t kAxiBurstFixed = 0;
constexpr std::uint32_t kAxiBurstWrapValue = 2;
constexpr std::uint32_t kMaxId = 0xffff;  // AxID width the transactor takes (16 bits; the tile uses 4)

std::string hex(std::uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

// Independent streams per channel: changing one probability leaves the
// others' sequences unchanged.
std::mt19937_64 stream(std::uint64_t seed, std::uint64_t channel) {
  return std::mt19937_64(seed ^ (0x9e3779b97f4a7c15ULL * (channel + 1)));
}

}  // namespace

Axi4SlaveTransactor::Axi4SlaveTransactor(Axi4SlaveConfig cfg, MemoryTarget& mem)
    : m_cfg(std::move(cfg)),
      m_mem(mem),
      m_rng_ar(stream(m_cfg.seed, 0)),
      m_rng_aw(stream(m_cfg.seed, 1)),
      m_rng_w(stream(m_cfg.seed, 2)),
      m_rng_r(stream(m_cfg.seed, 3)),
      m_rng_b(stream(m_cfg.seed, 4)),
      m_rng_pick(stream(m_cfg.seed, 5)) {
  const auto fail = [&](const std::string& why) { throw std::invalid_argument(m_cfg.name + ": " + why); };
  const std::uint32_t bb = m_cfg.beat_bytes;
  if (bb == 0 || (bb & (bb - 1)) != 0 || bb > k4KiB) fail("beat_bytes must be a power of two <= 4096");
  if (m_cfg.request_bytes % bb != 0) fail("request_bytes must be a multiple of beat_bytes");
  if (m_cfg.max_read_bursts == 0 || m_cfg.max_write_bursts == 0) fail("max_read/write_bursts must be >= 1");
  const Axi4Backpressure& bp = m_cfg.backpressure;
  for (double p : {bp.arready_low, bp.awready_low, bp.wready_low, bp.rvalid_gap, bp.bvalid_gap})
    if (!(p >= 0.0 && p < 1.0)) fail("backpressure probabilities must be in [0, 1)");
  m_mem.set_completion([this](const MemResponse& r) { on_response(r); });
}

bool Axi4SlaveTransactor::chance(std::mt19937_64& rng, double p) {
  if (p <= 0.0) return false;  // no draw: timing runs consume no randomness
  // Raw 64-bit output against p * 2^64 (no std:: distribution: portable bits).
  const long double threshold = std::ldexp(static_cast<long double>(p), 64);
  return static_cast<long double>(rng()) < threshold;
}

bool Axi4SlaveTransactor::live(std::uint64_t serial) const {
  return serial >= m_burst_base && serial - m_burst_base < m_bursts.size() && m_bursts[serial - m_burst_base].live;
}

void Axi4SlaveTransactor::erase_burst(std::uint64_t serial) {
  burst(serial).live = false;
  --m_live_bursts;
  while (!m_bursts.empty() && !m_bursts.front().live) {
    if (m_spare.size() < 64) m_spare.push_back(std::move(m_bursts.front()));
    m_bursts.pop_front();
    ++m_burst_base;
  }
}

Axi4SlaveTransactor::Burst& Axi4SlaveTransactor::new_burst() {
  if (m_spare.empty()) return m_bursts.emplace_back();
  Burst fresh;
  fresh.data = std::move(m_spare.back().data);
  fresh.strb = std::move(m_spare.back().strb);
  fresh.beat_ready = std::move(m_spare.back().beat_ready);
  m_spare.pop_back();
  fresh.data.clear();
  fresh.strb.clear();
  fresh.beat_ready.clear();
  return m_bursts.emplace_back(std::move(fresh));
}

void Axi4SlaveTransactor::IdQueues::push(std::uint32_t id, Burst* burst) {
  if (id >= by_id.size()) {
    by_id.resize(std::size_t{id} + 1);
    ready.resize(std::size_t{id} / 64 + 1);
  }
  by_id[id].push_back(burst);
}

void Axi4SlaveTransactor::IdQueues::pop(std::uint32_t id) { by_id.at(id).pop_front(); }

std::uint64_t Axi4SlaveTransactor::pick(const IdQueues& queues) {
  std::vector<std::uint64_t>& candidates = m_candidates;  // in ID order: deterministic
  candidates.clear();
  queues.for_each_ready([&](std::uint32_t id) { candidates.push_back(queues.by_id[id].front()->serial); });
  if (candidates.empty()) return kNone;
  if (candidates.size() == 1) return candidates.front();
  if (!m_cfg.random_interleave) return *std::min_element(candidates.begin(), candidates.end());
  return candidates[m_rng_pick() % candidates.size()];
}

void Axi4SlaveTransactor::drive(Axi4SlaveSignals& out) {
  const Axi4Backpressure& bp = m_cfg.backpressure;
  const bool ar_low = chance(m_rng_ar, bp.arready_low);
  const bool aw_low = chance(m_rng_aw, bp.awready_low);
  const bool w_low = chance(m_rng_w, bp.wready_low);
  out.arready = !ar_low && m_open_reads < m_cfg.max_read_bursts;
  out.awready = !aw_low && m_open_writes < m_cfg.max_write_bursts;
  out.wready = !w_low && (!m_w_order.empty() || m_early_w.size() < m_cfg.max_early_w_beats);

  // R: a beat once offered stays offered, unchanged, until taken. The ready
  // sets skip the search in the many cycles where nothing can be offered.
  if (m_r_current == kNone && !chance(m_rng_r, bp.rvalid_gap) && m_reads_by_id.any_ready())
    m_r_current = pick(m_reads_by_id);
  out.rvalid = m_r_current != kNone;
  out.rresp = kAxiRespOkay;
  // Between beats R carries zeros; refilled only when a beat was on it.
  if (out.rdata.size() != m_cfg.beat_bytes)
    out.rdata.assign(m_cfg.beat_bytes, 0);
  else if (!out.rvalid && m_rdata_dirty)
    std::fill(out.rdata.begin(), out.rdata.end(), 0);
  m_rdata_dirty = out.rvalid;
  if (out.rvalid) {
    const Burst& b = burst(m_r_current);
    const auto first = b.data.begin() + std::ptrdiff_t{b.beats_done} * m_cfg.beat_bytes;
    std::copy(first, first + m_cfg.beat_bytes, out.rdata.begin());
    out.rid = b.id;
    out.rlast = b.beats_done + 1 == b.beats;
  } else {
    out.rid = 0;
    out.rlast = false;
  }

  if (m_b_current == kNone && !chance(m_rng_b, bp.bvalid_gap) && m_writes_by_id.any_ready())
    m_b_current = pick(m_writes_by_id);
  out.bvalid = m_b_current != kNone;
  out.bid = out.bvalid ? burst(m_b_current).id : 0;
  out.bresp = kAxiRespOkay;
}

void Axi4SlaveTransactor::check_burst(const char* ch, std::uint32_t id, std::uint64_t addr, std::uint32_t len,
                                      std::uint32_t size, std::uint32_t burst, Time now) const {
  // Every burst passes through here: the strings are built only on a refusal.
  using Kind = Axi4ProtocolError::Kind;
  const auto fail = [&](Kind kind, const std::string& rule, const std::string& expected, const std::string& actual,
                        const std::string& why) {
    const std::string burst_id =
        std::string(ch) + " id " + std::to_string(id) + " addr " + hex(addr) + " len " + std::to_string(len);
    std::string channel = ch;
    for (char& c : channel) c = static_cast<char>(c - 'A' + 'a');
    // A legal burst the model cannot serve is said to be one: the fault may be the model's limit.
    const std::string label = kind == Kind::kUnsupported ? "unsupported by this slave model (legal AXI4): " : "";
    throw Axi4ProtocolError(m_cfg.name + ": " + burst_id + ": " + label + why,
                            {now, "protocol " + m_cfg.name + "." + channel, burst_id, rule, expected, actual}, kind);
  };
  const std::string limit = " (this slave model's limit; AXI4 allows others)";
  // Every rule AXI4 sets is checked before what this slave does not serve: a burst that breaks
  // one is a violation, whatever else about it the model could not have served.
  // AxBURST 3 is reserved (A3.4.1).
  if (burst > kAxiBurstWrapValue)
    fail(Kind::kViolation, "burst type", "1 (INCR)", std::to_string(burst),
         "burst type " + std::to_string(burst) + " is reserved in AXI4");
  // A beat wider than the bus breaks A3.4.1.
  const std::string bus = std::to_string(m_cfg.beat_bytes) + "-byte beats";
  if (size > 12 || (std::uint32_t{1} << size) > m_cfg.beat_bytes)
    fail(Kind::kViolation, "burst size", bus, "size " + std::to_string(size),
         "size " + std::to_string(size) + " wider than the bus beat of " + std::to_string(m_cfg.beat_bytes) +
             " bytes");
  const std::uint64_t beat = std::uint64_t{1} << size;
  if (len > 255)
    fail(Kind::kViolation, "burst length", "AxLEN <= 255", std::to_string(len),
         "AxLEN above 255 (more than 256 beats)");
  // FIXED bursts are 1 to 16 beats, WRAP bursts 2, 4, 8 or 16 from an address aligned to the beat (A3.4.1).
  if (burst == kAxiBurstFixed && len > 15)
    fail(Kind::kViolation, "burst length", "AxLEN <= 15 for a FIXED burst", std::to_string(len),
         "FIXED burst of more than 16 beats");
  if (burst == kAxiBurstWrapValue && len != 1 && len != 3 && len != 7 && len != 15)
    fail(Kind::kViolation, "burst length", "AxLEN 1, 3, 7 or 15 for a WRAP burst", std::to_string(len),
         "WRAP burst of " + std::to_string(len + 1) + " beats (2, 4, 8 or 16)");
  if (burst == kAxiBurstWrapValue && addr % beat != 0)
    fail(Kind::kViolation, "address alignment", "a multiple of " + std::to_string(beat) + " for a WRAP burst",
         hex(addr), "WRAP burst from an address not aligned to its beat size");
  // An INCR burst's bytes, from its start to the end of its last beat, stay in one 4 KiB page
  // (A3.4.1; FIXED and WRAP bursts stay within a beat or their wrap boundary).
  if (burst == kAxiBurstIncr) {
    const std::uint64_t bytes = addr / beat * beat + std::uint64_t{len + 1} * beat - addr;
    if (addr % k4KiB + bytes > k4KiB)
      fail(Kind::kViolation, "4 KiB boundary", "burst within one 4 KiB page",
           hex(addr) + " + " + std::to_string(bytes) + " bytes",
           "burst of " + std::to_string(bytes) + " bytes crosses a 4 KiB boundary");
  }
  // One queue per ID, by index: a 32-bit ID would allocate billions of them. AXI4 sets no width.
  if (id > kMaxId)
    fail(Kind::kUnsupported, "ID width", "AxID <= " + std::to_string(kMaxId) + limit, hex(id),
         "ID " + hex(id) + " wider than the transactor's 16 bits");
  // FIXED (0) and WRAP (2) are legal, but this slave serves INCR only.
  if (burst != kAxiBurstIncr)
    fail(Kind::kUnsupported, "burst type", "1 (INCR)" + limit, std::to_string(burst),
         "burst type " + std::to_string(burst) + " unsupported (only INCR = 1)");
  // A beat narrower than the bus is legal, but not served.
  if (beat != m_cfg.beat_bytes)
    fail(Kind::kUnsupported, "burst size", bus + limit, "size " + std::to_string(size),
         "size " + std::to_string(size) + " unsupported (narrower than the bus beat of " +
             std::to_string(m_cfg.beat_bytes) + " bytes)");
  // An unaligned INCR start is legal (A3.4.1: its first beat is narrower), but not served.
  if (addr % m_cfg.beat_bytes != 0)
    fail(Kind::kUnsupported, "address alignment", "a multiple of " + std::to_string(m_cfg.beat_bytes) + limit,
         hex(addr), "address not aligned to the beat");
}

std::uint64_t Axi4SlaveTransactor::accept_burst(bool write, std::uint32_t id, std::uint64_t addr, std::uint32_t len,
                                                Time now) {
  const std::uint64_t serial = m_next_serial++;
  Burst& b = new_burst();  // serial - m_burst_base == its index
  b.serial = serial;
  b.live = true;
  ++m_live_bursts;
  b.write = write;
  b.id = id;
  b.addr = addr;
  b.beats = len + 1;
  b.data.assign(std::size_t{b.beats} * m_cfg.beat_bytes, 0);
  if (write) {
    b.strb.assign(b.data.size(), 0);
    m_writes_by_id.push(id, &b);
    m_writes_by_id.update_ready(id, answerable);
    m_w_order.push_back(serial);
    ++m_open_writes;
    ++s_write_bursts;
  } else {
    b.beat_ready.assign(b.beats, false);
    m_reads_by_id.push(id, &b);
    m_reads_by_id.update_ready(id, beat_ready);
    ++m_open_reads;
    ++s_read_bursts;
    make_requests(serial, now);
  }
  return serial;
}

void Axi4SlaveTransactor::make_requests(std::uint64_t serial, Time now) {
  Burst& b = burst(serial);
  const std::uint32_t total = static_cast<std::uint32_t>(b.data.size());
  const std::uint32_t step = m_cfg.request_bytes == 0 ? total : m_cfg.request_bytes;
  for (std::uint32_t off = 0; off < total; off += step) {
    const std::uint32_t n = std::min(step, total - off);
    // Filled in place in its queue's reused slot.
    MemRequest& req = (b.write ? m_write_queue : m_read_queue).push_back();
    req.id = m_next_req;
    req.addr = b.addr + off;
    req.bytes = n;
    req.write = b.write;
    req.byte_enable.clear();
    if (b.write) {
      req.data.assign(b.data.begin() + off, b.data.begin() + off + n);
      const auto sb = b.strb.begin() + off, se = sb + n;
      if (!std::all_of(sb, se, [](std::uint8_t e) { return e != 0; })) req.byte_enable.assign(sb, se);
    } else {
      req.data.clear();
    }
    req.source = m_cfg.source;
    req.issue = now;
    m_pieces.push_back(Piece{serial, off, true});  // index m_next_req - m_piece_base
    ++m_next_req;
    ++b.pieces;
  }
}

void Axi4SlaveTransactor::take_w_beat(const std::vector<std::uint8_t>& data, const std::vector<bool>& strb,
                                      bool last, Time now) {
  const std::uint64_t serial = m_w_order.front();
  Burst& b = burst(serial);
  const std::uint32_t beat = b.beats_done;
  const bool expect_last = beat + 1 == b.beats;
  if (last != expect_last) {
    const std::string beat_id = "W beat " + std::to_string(beat + 1) + " of AW id " + std::to_string(b.id) + " addr " +
                                hex(b.addr) + " (AWLEN+1 = " + std::to_string(b.beats) + ")";
    throw Axi4ProtocolError(m_cfg.name + ": " + beat_id + ": WLAST " +
                                (last ? "set before the last beat" : "missing on the last beat"),
                            {now, "protocol " + m_cfg.name + ".w", beat_id, "WLAST", expect_last ? "1" : "0",
                             last ? "1" : "0"});
  }
  const std::size_t off = std::size_t{beat} * m_cfg.beat_bytes;
  const std::size_t n = std::min<std::size_t>(data.size(), m_cfg.beat_bytes);
  std::copy_n(data.begin(), n, b.data.begin() + off);
  std::fill(b.data.begin() + off + n, b.data.begin() + off + m_cfg.beat_bytes, 0);
  for (std::size_t i = 0; i < m_cfg.beat_bytes; ++i) {
    const bool enabled = i < strb.size() && strb[i];
    b.strb[off + i] = enabled;
    s_bytes_written += enabled;
  }
  ++b.beats_done;
  ++s_write_beats;
  if (expect_last) {
    m_w_order.pop_front();
    make_requests(serial, now);  // the burst's data is complete: to memory
  }
  // Not answerable yet: its pieces were only now made (on_response marks it).
}

void Axi4SlaveTransactor::on_edge(const Axi4MasterSignals& m, const Axi4SlaveSignals& s, Time now) {
  if (m.arvalid && s.arready) {
    check_burst("AR", m.arid, m.araddr, m.arlen, m.arsize, m.arburst, now);
    accept_burst(false, m.arid, m.araddr, m.arlen, now);
  }
  if (m.awvalid && s.awready) {
    check_burst("AW", m.awid, m.awaddr, m.awlen, m.awsize, m.awburst, now);
    accept_burst(true, m.awid, m.awaddr, m.awlen, now);
    // Beats that arrived ahead of their address belong to the oldest burst.
    while (!m_early_w.empty() && !m_w_order.empty()) {
      take_w_beat(m_early_w.front().data, m_early_w.front().strb, m_early_w.front().last, now);
      m_early_w.pop_front();
    }
  }
  if (m.wvalid && s.wready) {
    // WDATA and WSTRB narrower or wider than the bus: the pins were read from a master of
    // another width. A record of the run, as any rule the master's beats break.
    if (m.wdata.size() != m_cfg.beat_bytes || m.wstrb.size() != m_cfg.beat_bytes) {
      const std::string beat_id = "W beat " + std::to_string(s_write_beats + 1);
      const std::string seen =
          std::to_string(m.wdata.size()) + " data bytes, " + std::to_string(m.wstrb.size()) + " strobes";
      throw Axi4ProtocolError(m_cfg.name + ": " + beat_id + " of " + seen + " on a " +
                                  std::to_string(m_cfg.beat_bytes) + "-byte bus",
                              {now, "protocol " + m_cfg.name + ".w", beat_id, "W beat size",
                               std::to_string(m_cfg.beat_bytes) + " data bytes and strobes", seen});
    }
    if (m_w_order.empty())
      m_early_w.push_back(WBeat{m.wdata, m.wstrb, m.wlast});
    else
      take_w_beat(m.wdata, m.wstrb, m.wlast, now);
  }
  if (s.rvalid && m.rready && m_r_current != kNone) {
    const std::uint64_t serial = m_r_current;
    Burst& b = burst(serial);
    const std::uint32_t id = b.id;
    if (m_r_last != kNone && m_r_last != serial && live(m_r_last)) ++s_read_interleavings;
    ++b.beats_done;
    ++s_read_beats;
    s_bytes_read += m_cfg.beat_bytes;
    m_r_current = kNone;
    m_r_last = serial;
    if (b.beats_done == b.beats) {
      m_reads_by_id.pop(id);
      erase_burst(serial);
      --m_open_reads;
    }
    m_reads_by_id.update_ready(id, beat_ready);
  }
  if (s.bvalid && m.bready && m_b_current != kNone) {
    const std::uint64_t serial = m_b_current;
    const std::uint32_t id = burst(serial).id;
    m_writes_by_id.pop(id);
    erase_burst(serial);
    --m_open_writes;
    m_writes_by_id.update_ready(id, answerable);
    m_b_current = kNone;
  }

  // One read and one write request offered per edge; refused ones wait.
  if (!m_read_queue.empty() && m_mem.send(m_read_queue.front(), now)) {
    m_read_queue.pop_front();
    ++s_requests;
  }
  if (!m_write_queue.empty() && m_mem.send(m_write_queue.front(), now)) {
    m_write_queue.pop_front();
    ++s_requests;
  }
}

void Axi4SlaveTransactor::on_response(const MemResponse& r) {
  if (r.id < m_piece_base || r.id - m_piece_base >= m_pieces.size() || !m_pieces[r.id - m_piece_base].pending)
    throw std::logic_error(m_cfg.name + ": completion for unknown request " + std::to_string(r.id));
  const Piece piece = m_pieces[r.id - m_piece_base];
  m_pieces[r.id - m_piece_base].pending = false;
  while (!m_pieces.empty() && !m_pieces.front().pending) {
    m_pieces.pop_front();
    ++m_piece_base;
  }
  Burst& b = burst(piece.burst);
  ++b.pieces_done;
  if (!b.write) {
    if (r.data.size() != r.bytes)
      throw std::logic_error(m_cfg.name + ": read completion " + std::to_string(r.id) + " carries " +
                             std::to_string(r.data.size()) + " bytes, expected " + std::to_string(r.bytes));
    std::copy(r.data.begin(), r.data.end(), b.data.begin() + piece.offset);
    for (std::uint32_t k = piece.offset / m_cfg.beat_bytes; k < (piece.offset + r.bytes) / m_cfg.beat_bytes; ++k)
      b.beat_ready[k] = true;
    m_reads_by_id.update_ready(b.id, beat_ready);
  } else {
    m_writes_by_id.update_ready(b.id, answerable);
  }
}

}  // namespace mxc
