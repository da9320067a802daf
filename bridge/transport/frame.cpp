#include "bridge/transport/frame.h"

#include <cstring>
#include <string_view>

namespace mxc::transport {

namespace {

// Appends to a caller's buffer, so a connection reuses one buffer for all its frames.
class Writer {
 public:
  explicit Writer(std::vector<std::uint8_t>& out) : m_out(out) {}
  void u8(std::uint8_t v) { m_out.push_back(v); }
  void u16(std::uint16_t v) { put(v, 2); }
  void u32(std::uint32_t v) { put(v, 4); }
  void u64(std::uint64_t v) { put(v, 8); }
  void boolean(bool v) { u8(v ? 1 : 0); }
  void bytes(const std::vector<std::uint8_t>& b) {
    u32(static_cast<std::uint32_t>(b.size()));
    m_out.insert(m_out.end(), b.begin(), b.end());
  }
  /// A string as bytes (Reader::text), without a copy into a byte vector first.
  void text(std::string_view t) {
    u32(static_cast<std::uint32_t>(t.size()));
    m_out.insert(m_out.end(), t.begin(), t.end());
  }
  /// Their count, then each as text (Reader::texts).
  void texts(const std::vector<std::string>& v) {
    u32(static_cast<std::uint32_t>(v.size()));
    for (const std::string& t : v) text(t);
  }
  void bits(const std::vector<bool>& b) {
    u32(static_cast<std::uint32_t>(b.size()));
    for (std::size_t i = 0; i < b.size(); i += 8) {
      std::uint8_t v = 0;
      for (std::size_t j = 0; j < 8 && i + j < b.size(); ++j) v |= static_cast<std::uint8_t>(b[i + j] ? 1u << j : 0u);
      u8(v);
    }
  }

 private:
  void put(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) m_out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  std::vector<std::uint8_t>& m_out;
};

class Reader {
 public:
  Reader(std::span<const std::uint8_t> in, const std::string& what) : m_in(in), m_what(what) {}
  std::uint8_t u8() { return static_cast<std::uint8_t>(get(1)); }
  std::uint16_t u16() { return static_cast<std::uint16_t>(get(2)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(get(4)); }
  std::uint64_t u64() { return get(8); }
  bool boolean() {
    const std::uint8_t v = u8();
    if (v > 1) throw ProtocolError(m_what + ": boolean field holds " + std::to_string(v));
    return v == 1;
  }
  std::vector<std::uint8_t> bytes() {
    const std::uint32_t n = u32();
    need(n);  // before allocating: a bad count must not allocate
    std::vector<std::uint8_t> b(m_in.begin() + static_cast<std::ptrdiff_t>(m_pos),
                                m_in.begin() + static_cast<std::ptrdiff_t>(m_pos + n));
    m_pos += n;
    return b;
  }
  std::vector<bool> bits() {
    const std::uint32_t n = u32();
    need((static_cast<std::size_t>(n) + 7) / 8);
    std::vector<bool> b(n);
    for (std::uint32_t i = 0; i < n; ++i) b[i] = (m_in[m_pos + i / 8] >> (i % 8)) & 1;
    m_pos += (static_cast<std::size_t>(n) + 7) / 8;
    return b;
  }
  std::string text() {
    const auto b = bytes();
    return std::string(b.begin(), b.end());
  }
  /// `n` texts, a count the caller has read and bounded (Writer::texts).
  std::vector<std::string> texts(std::uint32_t n) {
    std::vector<std::string> v;
    for (std::uint32_t i = 0; i < n; ++i) v.push_back(text());
    return v;
  }
  void end() const {
    if (m_pos != m_in.size())
      throw ProtocolError(m_what + ": " + std::to_string(m_in.size() - m_pos) + " unexpected trailing bytes");
  }

 private:
  void need(std::size_t n) const {
    if (m_in.size() - m_pos < n)
      throw ProtocolError(m_what + ": truncated (needs " + std::to_string(n) + " more bytes, has " +
                          std::to_string(m_in.size() - m_pos) + ")");
  }
  std::uint64_t get(int n) {
    need(static_cast<std::size_t>(n));
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= std::uint64_t{m_in[m_pos + static_cast<std::size_t>(i)]} << (8 * i);
    m_pos += static_cast<std::size_t>(n);
    return v;
  }
  std::span<const std::uint8_t> m_in;
  std::size_t m_pos = 0;
  std::string m_what;
};

void put_request(Writer& w, const MemRequest& r) {
  w.u64(r.id);
  w.u64(r.addr);
  w.u32(r.bytes);
  w.boolean(r.write);
  w.bytes(r.data);
  w.bits(r.byte_enable);
  w.u32(r.source);
  w.u64(r.issue);
}
MemRequest get_request(Reader& r) {
  MemRequest q;
  q.id = r.u64();
  q.addr = r.u64();
  q.bytes = r.u32();
  q.write = r.boolean();
  q.data = r.bytes();
  q.byte_enable = r.bits();
  q.source = r.u32();
  q.issue = r.u64();
  return q;
}
void put_response(Writer& w, const MemResponse& r) {
  w.u64(r.id);
  w.u64(r.addr);
  w.u32(r.bytes);
  w.boolean(r.write);
  w.bytes(r.data);
  w.u32(r.source);
  w.u64(r.issue);
  w.u64(r.accept);
  w.u64(r.complete);
}
MemResponse get_response(Reader& r) {
  MemResponse p;
  p.id = r.u64();
  p.addr = r.u64();
  p.bytes = r.u32();
  p.write = r.boolean();
  p.data = r.bytes();
  p.source = r.u32();
  p.issue = r.u64();
  p.accept = r.u64();
  p.complete = r.u64();
  return p;
}
void put_packet(Writer& w, const IciPacket& p) {
  w.u64(p.id);
  w.u32(p.src);
  w.u32(p.dst);
  w.u8(p.vc);
  w.u32(p.bytes);
  w.u64(p.addr);
  w.boolean(p.last);
  w.bytes(p.payload);
  w.u64(p.inject);
  w.u64(p.deliver);
}
IciPacket get_packet(Reader& r) {
  IciPacket p;
  p.id = r.u64();
  p.src = r.u32();
  p.dst = r.u32();
  p.vc = r.u8();
  p.bytes = r.u32();
  p.addr = r.u64();
  p.last = r.boolean();
  p.payload = r.bytes();
  p.inject = r.u64();
  p.deliver = r.u64();
  return p;
}

struct BodyWriter {
  Writer& w;
  void operator()(const Hello& h) const {
    w.u32(h.magic);
    w.u16(h.version);
    w.u64(h.config_hash);
    w.u64(h.seed);
    w.u8(static_cast<std::uint8_t>(h.role));
    w.u32(static_cast<std::uint32_t>(h.chips.size()));
    for (std::uint32_t c : h.chips) w.u32(c);
    w.u32(h.fabric_chips);
    w.u8(h.flags);
    w.u64(h.mem_latency_ps);
    w.u32(h.mem_capacity);
    w.text(h.split_terms);
  }
  void operator()(const RequestMsg& m) const {
    w.u32(m.chip);
    w.u64(m.time);
    w.boolean(m.probe);
    put_request(w, m.req);
  }
  void operator()(const ResponseMsg& m) const {
    w.u32(m.chip);
    put_response(w, m.resp);
  }
  void operator()(const PacketMsg& m) const {
    w.u64(m.time);
    w.boolean(m.probe);
    put_packet(w, m.pkt);
  }
  void operator()(const SyncMsg& m) const {
    w.u32(m.target);
    w.u64(m.time);
  }
  void operator()(const AckMsg& m) const {
    w.boolean(m.accepted);
    w.u64(m.next_event);
  }
  void operator()(const BackdoorMsg& m) const {
    w.u32(m.chip);
    w.u64(m.addr);
    w.boolean(m.write);
    w.u32(m.bytes);
    w.bytes(m.data);
  }
  void operator()(const HeartbeatMsg&) const {}
  void operator()(const ByeMsg&) const {}
  void operator()(const ErrorMsg& m) const { w.text(m.text); }
  void operator()(const WindowMsg& m) const {
    w.u64(m.time);
    w.u64(m.next);
    w.boolean(m.done);
    w.u64(m.end_time);
    w.u32(m.end_component);
  }
  void operator()(const ReportMsg& m) const {
    w.u32(m.total);
    w.texts(m.parts);
  }
  void operator()(const FinishMsg& m) const {
    w.u32(m.chip);
    w.u64(m.time);
    w.u64(m.beyond_capacity);
    w.boolean(m.timing_checked);
    w.texts(m.violations);
    w.text(m.error);
  }
};

FinishMsg get_finish(Reader& r) {
  FinishMsg f;
  f.chip = r.u32();
  f.time = r.u64();
  f.beyond_capacity = r.u64();
  f.timing_checked = r.boolean();
  const std::uint32_t n = r.u32();
  if (n > 4096) throw ProtocolError("FINISH frame: " + std::to_string(n) + " violations (at most 4096)");
  f.violations = r.texts(n);
  f.error = r.text();
  return f;
}

}  // namespace

MsgType type_of(const Message& m) {
  static constexpr MsgType kTypes[] = {MsgType::kHello,  MsgType::kRequest,  MsgType::kResponse,  MsgType::kPacket,
                                       MsgType::kSync,   MsgType::kAck,      MsgType::kBackdoor,  MsgType::kHeartbeat,
                                       MsgType::kBye,    MsgType::kError,    MsgType::kWindow,    MsgType::kReport,
                                       MsgType::kFinish};
  return kTypes[m.index()];
}

std::string type_name(std::uint8_t type) {
  switch (static_cast<MsgType>(type)) {
    case MsgType::kHello: return "HELLO";
    case MsgType::kRequest: return "REQUEST";
    case MsgType::kResponse: return "RESPONSE";
    case MsgType::kPacket: return "PACKET";
    case MsgType::kSync: return "SYNC";
    case MsgType::kAck: return "ACK";
    case MsgType::kBackdoor: return "BACKDOOR";
    case MsgType::kHeartbeat: return "HEARTBEAT";
    case MsgType::kBye: return "BYE";
    case MsgType::kError: return "ERROR";
    case MsgType::kWindow: return "WINDOW";
    case MsgType::kReport: return "REPORT";
    case MsgType::kFinish: return "FINISH";
  }
  return "type " + std::to_string(type);
}

void encode_into(std::vector<std::uint8_t>& out, const Message& m) {
  const std::size_t start = out.size();
  Writer w(out);
  w.u32(0);  // length, patched below
  w.u8(static_cast<std::uint8_t>(type_of(m)));
  std::visit(BodyWriter{w}, m);
  const std::size_t len = out.size() - start - kLengthBytes;
  if (len > kMaxFrameBytes) {
    const std::string name = type_name(out[start + kLengthBytes]);
    out.resize(start);
    throw std::length_error("transport: " + name + " frame of " + std::to_string(len) +
                            " bytes exceeds the limit of " + std::to_string(kMaxFrameBytes));
  }
  for (std::size_t i = 0; i < kLengthBytes; ++i) out[start + i] = static_cast<std::uint8_t>(len >> (8 * i));
}

std::vector<ReportMsg> report_frames(std::vector<std::string> parts) {
  // A frame's body: type, total and count (9 bytes), then each part's length and bytes.
  constexpr std::size_t kFixed = 1 + 4 + 4, kPerPart = 4;
  const auto total = static_cast<std::uint32_t>(parts.size());
  std::vector<ReportMsg> frames(1, ReportMsg{{}, total});
  std::size_t used = kFixed;
  for (std::string& p : parts) {
    if (!frames.back().parts.empty() && used + kPerPart + p.size() > kMaxFrameBytes) {
      frames.push_back(ReportMsg{{}, total});
      used = kFixed;
    }
    used += kPerPart + p.size();
    frames.back().parts.push_back(std::move(p));
  }
  return frames;
}

std::vector<std::uint8_t> encode(const Message& m) {
  std::vector<std::uint8_t> out;
  encode_into(out, m);
  return out;
}

Message decode_body(std::span<const std::uint8_t> body) {
  if (body.empty()) throw ProtocolError("empty frame (no type byte)");
  const std::uint8_t type = body[0];
  const std::string what = type_name(type) + " frame";
  Reader r(body.subspan(1), what);
  Message m;
  switch (static_cast<MsgType>(type)) {
    case MsgType::kHello: {
      Hello h;
      h.magic = r.u32();
      if (h.magic != kHelloMagic) throw ProtocolError("HELLO frame: bad magic (not an mxcosim transport peer)");
      h.version = r.u16();
      h.config_hash = r.u64();
      h.seed = r.u64();
      const std::uint8_t role = r.u8();
      if (role > 1) throw ProtocolError("HELLO frame: unknown role " + std::to_string(role));
      h.role = static_cast<Role>(role);
      const std::uint32_t n = r.u32();
      if (n > 4096) throw ProtocolError("HELLO frame: " + std::to_string(n) + " chips (at most 4096)");
      for (std::uint32_t i = 0; i < n; ++i) h.chips.push_back(r.u32());
      h.fabric_chips = r.u32();
      h.flags = r.u8();
      if (h.flags & ~kHelloFlagsKnown) throw ProtocolError("HELLO frame: unknown flags " + std::to_string(h.flags));
      h.mem_latency_ps = r.u64();
      h.mem_capacity = r.u32();
      // Older peers' HELLO ends here: decoded whole, it is refused for its version.
      if (h.version >= 5) h.split_terms = r.text();
      m = std::move(h);
      break;
    }
    case MsgType::kRequest: {
      RequestMsg q;
      q.chip = r.u32();
      q.time = r.u64();
      q.probe = r.boolean();
      q.req = get_request(r);
      m = std::move(q);
      break;
    }
    case MsgType::kResponse: {
      ResponseMsg p;
      p.chip = r.u32();
      p.resp = get_response(r);
      m = std::move(p);
      break;
    }
    case MsgType::kPacket: {
      PacketMsg p;
      p.time = r.u64();
      p.probe = r.boolean();
      p.pkt = get_packet(r);
      m = std::move(p);
      break;
    }
    case MsgType::kSync: {
      SyncMsg s;
      s.target = r.u32();
      s.time = r.u64();
      m = s;
      break;
    }
    case MsgType::kAck: {
      AckMsg a;
      a.accepted = r.boolean();
      a.next_event = r.u64();
      m = a;
      break;
    }
    case MsgType::kBackdoor: {
      BackdoorMsg b;
      b.chip = r.u32();
      b.addr = r.u64();
      b.write = r.boolean();
      b.bytes = r.u32();
      b.data = r.bytes();
      m = std::move(b);
      break;
    }
    case MsgType::kHeartbeat: m = HeartbeatMsg{}; break;
    case MsgType::kBye: m = ByeMsg{}; break;
    case MsgType::kError: m = ErrorMsg{r.text()}; break;
    case MsgType::kWindow: {
      WindowMsg win;
      win.time = r.u64();
      win.next = r.u64();
      win.done = r.boolean();
      win.end_time = r.u64();
      win.end_component = r.u32();
      m = win;
      break;
    }
    case MsgType::kReport: {
      ReportMsg rep;
      rep.total = r.u32();
      const std::uint32_t n = r.u32();
      if (rep.total > 4096) throw ProtocolError("REPORT frame: " + std::to_string(rep.total) + " parts (at most 4096)");
      if (n > rep.total)
        throw ProtocolError("REPORT frame: " + std::to_string(n) + " parts of " + std::to_string(rep.total) +
                            " in all");
      rep.parts = r.texts(n);
      m = std::move(rep);
      break;
    }
    case MsgType::kFinish: m = get_finish(r); break;
    default: throw ProtocolError("unknown message type " + std::to_string(type));
  }
  r.end();
  return m;
}

void FrameDecoder::feed(std::span<const std::uint8_t> bytes) {
  // Drop consumed bytes first so the buffer stays about one frame long.
  if (m_pos > 0 && m_pos == m_buf.size()) {
    m_buf.clear();
    m_pos = 0;
  } else if (m_pos > (1u << 16)) {
    m_buf.erase(m_buf.begin(), m_buf.begin() + static_cast<std::ptrdiff_t>(m_pos));
    m_pos = 0;
  }
  m_buf.insert(m_buf.end(), bytes.begin(), bytes.end());
}

std::optional<Message> FrameDecoder::next() {
  const std::size_t avail = m_buf.size() - m_pos;
  if (avail < kLengthBytes) return std::nullopt;
  std::uint32_t len = 0;
  for (std::size_t i = 0; i < kLengthBytes; ++i) len |= std::uint32_t{m_buf[m_pos + i]} << (8 * i);
  if (len == 0) throw ProtocolError("bad frame length 0");
  if (len > kMaxFrameBytes)
    throw ProtocolError("bad frame length " + std::to_string(len) + " (limit " + std::to_string(kMaxFrameBytes) +
                        ")");
  // Reject an unknown type as soon as its byte is here, not after waiting for the whole body.
  const std::uint8_t type = avail > kLengthBytes ? m_buf[m_pos + kLengthBytes] : 1;
  if (type == 0 || type > static_cast<std::uint8_t>(MsgType::kFinish))
    throw ProtocolError("unknown message type " + std::to_string(type));
  if (avail < kLengthBytes + len) return std::nullopt;
  const std::span<const std::uint8_t> body(m_buf.data() + m_pos + kLengthBytes, len);
  m_pos += kLengthBytes + len;
  return decode_body(body);
}

void FrameDecoder::finish() const {
  const std::size_t avail = m_buf.size() - m_pos;
  if (avail == 0) return;
  if (avail < kLengthBytes)
    throw ProtocolError("truncated frame: stream ended after " + std::to_string(avail) + " bytes of a length prefix");
  std::uint32_t len = 0;
  for (std::size_t i = 0; i < kLengthBytes; ++i) len |= std::uint32_t{m_buf[m_pos + i]} << (8 * i);
  throw ProtocolError("truncated frame: stream ended after " + std::to_string(avail - kLengthBytes) + " of " +
                      std::to_string(len) + " bytes");
}

}  // namespace mxc::transport
