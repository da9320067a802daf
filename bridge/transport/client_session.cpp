#include "bridge/transport/client_session.h"

#include "bridge/transport/remote_fabric.h"
#include "bridge/transport/remote_memory.h"

namespace mxc::transport {

namespace {

std::string chip_list(const std::vector<std::uint32_t>& chips) {
  std::string s;
  for (std::uint32_t c : chips) s += (s.empty() ? "" : ",") + std::to_string(c);
  return s;
}

}  // namespace

ClientSession::ClientSession(ClientOptions opts) : m_opts(std::move(opts)) {}

std::shared_ptr<ClientSession> ClientSession::connect(const ClientOptions& opts) {
  std::shared_ptr<ClientSession> s(new ClientSession(opts));
  s->m_channel = Channel::connect(parse_address(opts.address), opts.connect_timeout);
  s->m_channel->set_stop(opts.stop);
  Hello h;
  h.config_hash = config_hash(opts.system);
  h.seed = opts.seed;
  h.role = Role::kClient;
  h.chips = opts.chips;
  h.flags = static_cast<std::uint8_t>((opts.lookahead ? kHelloLookahead : 0) | (opts.split ? kHelloSplit : 0));
  if (opts.split) h.split_terms = opts.split_terms;
  if (opts.split && h.chips.empty()) throw TransportError("transport: a split run names the chips this client runs");
  if (h.chips.empty())
    for (std::uint32_t c = 0; c < opts.system.chips; ++c) h.chips.push_back(c);
  {
    std::lock_guard lk(s->m_mutex);
    s->send_locked(h);
    Message m = s->receive_locked();
    const Hello* r = std::get_if<Hello>(&m);
    if (!r || r->role != Role::kServer)
      s->fail_locked("expected the server's HELLO, got " + type_name(static_cast<std::uint8_t>(type_of(m))));
    if (r->version != kProtocolVersion)
      s->fail_locked("server speaks protocol version " + std::to_string(r->version) + ", this client " +
                     std::to_string(kProtocolVersion));
    // The server says what it hosts: the memories of the chips asked for, or none (the
    // client simulates its own), and its fabric, or none (fabric_chips 0).
    if (!r->chips.empty() && r->chips != h.chips)
      s->fail_locked("serves the memories of chip(s) " + chip_list(r->chips) + ", this client asked for " +
                     chip_list(h.chips));
    if (opts.split && r->fabric_chips == 0)
      s->fail_locked("serves no fabric, and a split run needs it (mxcosim serve --serve fabric or all)");
    s->m_serves_memories = !r->chips.empty();
    s->m_fabric_chips = r->fabric_chips;
    if (r->mem_capacity > 0 && !opts.lookahead) s->fail_locked("server granted lookahead mode, which was not asked for");
    s->m_contract = FixedLatency{r->mem_latency_ps, r->mem_capacity};
    s->m_inbox.resize(opts.system.chips);
    s->m_unanswered.resize(opts.system.chips);
    s->m_accepted = true;
  }
  s->m_heartbeat = std::thread([p = s.get()] { p->heartbeat_loop(); });
  return s;
}

ClientSession::~ClientSession() {
  try {
    bye();
  } catch (const std::exception&) {
    // Best effort: the run's result does not depend on a polite goodbye.
  }
  {
    std::lock_guard lk(m_mutex);
    m_stop = true;
  }
  m_cv.notify_all();
  if (m_heartbeat.joinable()) m_heartbeat.join();
}

void ClientSession::fail_locked(const std::string& why) {
  if (m_failed.empty()) m_failed = why.rfind("transport: ", 0) == 0 ? why : "transport: server " + m_opts.address + ": " + why;
  if (m_channel) m_channel->close();
  throw TransportError(m_failed);
}

std::string ClientSession::server_error(const std::string& text) const {
  // Before the handshake's end an ERROR refuses this client; after it, the session was under
  // way and the server ended it (a failed model, another client of a split run gone, ...).
  if (!m_accepted) return "refused: " + text;
  if (text.rfind("the server ended this session", 0) == 0) return text;
  return "the server ended the session: " + text;
}

void ClientSession::check_locked() {
  if (!m_failed.empty()) throw TransportError(m_failed);
  if (m_closed) throw TransportError("transport: session with " + m_opts.address + " already ended");
}

std::string ClientSession::write_failure_locked(const TransportError& e) {
  // A server that refused or dropped this client said why before it closed: that is the
  // reason, not the closed connection this write ran into.
  try {
    while (auto r = m_channel->try_receive())
      if (auto* err = std::get_if<ErrorMsg>(&*r)) return server_error(err->text);
  } catch (const TransportError&) {  // garbage after the messages: the ones before count
  }
  return e.what();
}

void ClientSession::send_locked(const Message& m) {
  check_locked();
  try {
    m_channel->send(m, m_opts.reply_timeout);
    m_last_send = std::chrono::steady_clock::now();
  } catch (const TransportError& e) {
    fail_locked(write_failure_locked(e));
  }
}

Message ClientSession::receive_locked() {
  check_locked();
  Message m;
  try {
    m = m_channel->receive(m_opts.reply_timeout);
  } catch (const TransportError& e) {
    fail_locked(e.what());
  }
  if (auto* e = std::get_if<ErrorMsg>(&m)) fail_locked(server_error(e->text));
  return m;
}

void ClientSession::heartbeat_loop() {
  std::unique_lock lk(m_mutex);
  while (!m_stop) {
    m_cv.wait_for(lk, m_opts.heartbeat);
    if (m_stop || m_closed || !m_failed.empty()) continue;
    if (std::chrono::steady_clock::now() - m_last_send < m_opts.heartbeat) continue;
    try {
      m_channel->send(HeartbeatMsg{}, m_opts.reply_timeout);
      m_last_send = std::chrono::steady_clock::now();
    } catch (const TransportError& e) {
      m_failed = write_failure_locked(e);  // the next exchange reports it
    }
  }
}

bool ClientSession::stash_locked(Message& m) {
  // The server keeps a client waiting for the others of a split run alive with heartbeats.
  if (std::holds_alternative<HeartbeatMsg>(m)) return true;
  auto* r = std::get_if<ResponseMsg>(&m);
  if (!r || m_contract.capacity == 0) return false;
  if (r->chip >= m_inbox.size()) fail_locked("RESPONSE for chip " + std::to_string(r->chip) + ", which is not served");
  // One completion per posted request: a correct server never pushes more.
  if (m_unanswered[r->chip] == 0)
    fail_locked("pushed more completions for chip " + std::to_string(r->chip) + " than requests in flight");
  --m_unanswered[r->chip];
  m_inbox[r->chip].push_back(std::move(r->resp));
  return true;
}

Message ClientSession::receive_answer_locked() {
  for (;;) {
    Message m = receive_locked();
    if (!stash_locked(m)) return m;
  }
}

void ClientSession::post_request(std::uint32_t chip, const MemRequest& req, Time now) {
  std::lock_guard lk(m_mutex);
  if (chip >= m_unanswered.size()) fail_locked("no memory of chip " + std::to_string(chip) + " is served");
  post_locked(RequestMsg{chip, now, false, req});
  ++m_unanswered[chip];
}

void ClientSession::post_packet(const IciPacket& pkt, Time now) {
  std::lock_guard lk(m_mutex);
  post_locked(PacketMsg{now, false, pkt});
}

void ClientSession::post_locked(const Message& msg) {
  check_locked();
  // Batched, but not for long: the server pushes a completion as soon as it has
  // the request, so it is usually here before the simulation reaches its time.
  // Anything queued is also written before any wait (Channel::receive).
  const auto t = std::chrono::steady_clock::now();
  if (m_channel->queued() == 0) m_first_queued = t;
  m_channel->queue(msg);
  ++m_posted;
  if (m_channel->queued() >= kPostBatchBytes || t - m_first_queued >= kPostBatchDelay) {
    try {
      m_channel->flush(m_opts.reply_timeout);
      m_last_send = t;
    } catch (const TransportError& e) {
      fail_locked(write_failure_locked(e));
    }
  }
}

void ClientSession::take_completions(std::uint32_t chip, std::size_t n, std::vector<MemResponse>& out) {
  std::lock_guard lk(m_mutex);
  check_locked();
  if (chip >= m_inbox.size()) fail_locked("no memory of chip " + std::to_string(chip) + " is served");
  auto& box = m_inbox[chip];
  // Take what is already read and buffered; then, while what is needed is
  // still missing, what the socket holds (a system call, which finds nothing
  // as often as not: so not when the buffer had enough); block, and count
  // it, only while it is still missing.
  bool waited = false;
  const auto take = [&](bool buffered_only) {
    for (;;) {
      std::optional<Message> m;
      try {
        m = buffered_only ? m_channel->try_receive_buffered() : m_channel->try_receive();
      } catch (const TransportError& e) {
        fail_locked(e.what());
      }
      if (!m) return;
      if (auto* e = std::get_if<ErrorMsg>(&*m)) fail_locked(server_error(e->text));
      if (!stash_locked(*m))
        fail_locked("unexpected " + type_name(static_cast<std::uint8_t>(type_of(*m))) + " while waiting for completions");
    }
  };
  for (;;) {
    take(true);
    if (box.size() >= n) break;
    take(false);
    if (box.size() >= n) break;
    if (!waited) ++m_round_trips;
    waited = true;
    Message m = receive_locked();
    if (!stash_locked(m))
      fail_locked("unexpected " + type_name(static_cast<std::uint8_t>(type_of(m))) + " while waiting for completions");
  }
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(std::move(box.front()));
    box.pop_front();
  }
}

AckMsg ClientSession::request(std::uint32_t chip, const MemRequest& req, Time now, bool probe) {
  std::lock_guard lk(m_mutex);
  send_locked(RequestMsg{chip, now, probe, req});
  Message m = receive_answer_locked();
  ++m_round_trips;
  if (auto* a = std::get_if<AckMsg>(&m)) return *a;
  fail_locked("expected ACK to a REQUEST, got " + type_name(static_cast<std::uint8_t>(type_of(m))));
}

AckMsg ClientSession::packet(const IciPacket& pkt, Time now, bool probe) {
  std::lock_guard lk(m_mutex);
  send_locked(PacketMsg{now, probe, pkt});
  Message m = receive_answer_locked();
  ++m_round_trips;
  if (auto* a = std::get_if<AckMsg>(&m)) return *a;
  fail_locked("expected ACK to a PACKET, got " + type_name(static_cast<std::uint8_t>(type_of(m))));
}

Time ClientSession::advance(std::uint32_t target, Time now, std::vector<MemResponse>& completions,
                            std::vector<IciPacket>& deliveries) {
  std::lock_guard lk(m_mutex);
  send_locked(SyncMsg{target, now});
  ++m_round_trips;
  for (;;) {
    Message m = receive_answer_locked();
    if (auto* r = std::get_if<ResponseMsg>(&m)) {
      if (r->chip != target) fail_locked("RESPONSE for chip " + std::to_string(r->chip) + " during a SYNC of another target");
      completions.push_back(std::move(r->resp));
    } else if (auto* p = std::get_if<PacketMsg>(&m)) {
      if (target != kFabricTarget) fail_locked("PACKET delivery during a SYNC of a memory");
      deliveries.push_back(std::move(p->pkt));
    } else if (auto* s = std::get_if<SyncMsg>(&m)) {
      if (s->target != target) fail_locked("SYNC answer for another target");
      return s->time;
    } else {
      fail_locked("unexpected " + type_name(static_cast<std::uint8_t>(type_of(m))) + " during a SYNC");
    }
  }
}

WindowMsg ClientSession::window(const WindowMsg& mine, std::vector<PacketMsg>& deliveries) {
  std::lock_guard lk(m_mutex);
  send_locked(mine);
  ++m_round_trips;
  for (;;) {
    Message m = receive_answer_locked();
    if (auto* p = std::get_if<PacketMsg>(&m)) {
      if (p->time < mine.time) fail_locked("delivery at " + std::to_string(p->time) + " ps, before the window at " +
                                           std::to_string(mine.time) + " ps");
      deliveries.push_back(std::move(*p));
    } else if (auto* w = std::get_if<WindowMsg>(&m)) {
      return *w;
    } else {
      fail_locked("unexpected " + type_name(static_cast<std::uint8_t>(type_of(m))) + " during a WINDOW");
    }
  }
}

std::vector<std::string> ClientSession::exchange_reports(const std::string& mine) {
  std::lock_guard lk(m_mutex);
  send_locked(ReportMsg{{mine}});
  ++m_round_trips;
  // Every client's part, over as many frames as the server needed (report_frames).
  std::vector<std::string> parts;
  for (std::uint32_t total = 1; parts.size() < total;) {
    Message m = receive_answer_locked();
    auto* r = std::get_if<ReportMsg>(&m);
    if (!r) fail_locked("expected REPORT, got " + type_name(static_cast<std::uint8_t>(type_of(m))));
    if (!parts.empty() && r->total != total)
      fail_locked("REPORT frames disagree on the parts in all (" + std::to_string(total) + ", then " +
                  std::to_string(r->total) + ")");
    total = r->total;
    if (r->parts.empty() || parts.size() + r->parts.size() > total)
      fail_locked("REPORT frame of " + std::to_string(r->parts.size()) + " parts after " +
                  std::to_string(parts.size()) + " of " + std::to_string(total));
    for (std::string& p : r->parts) parts.push_back(std::move(p));
  }
  return parts;
}

FinishMsg ClientSession::finish_memory(std::uint32_t chip, Time now) {
  std::lock_guard lk(m_mutex);
  send_locked(FinishMsg{chip, now, 0, false, {}, {}});
  Message m = receive_answer_locked();
  ++m_round_trips;
  auto* f = std::get_if<FinishMsg>(&m);
  if (!f || f->chip != chip)
    fail_locked("expected FINISH of chip " + std::to_string(chip) + ", got " +
                type_name(static_cast<std::uint8_t>(type_of(m))));
  return std::move(*f);
}

void ClientSession::backdoor_write(std::uint32_t chip, std::uint64_t addr, std::span<const std::uint8_t> data) {
  std::lock_guard lk(m_mutex);
  // Big images go in pieces, each well under the frame limit.
  constexpr std::size_t kPiece = 1u << 20;
  for (std::size_t off = 0; off < data.size() || (off == 0 && data.empty()); off += kPiece) {
    const std::size_t n = std::min(kPiece, data.size() - off);
    BackdoorMsg b{chip, addr + off, true, static_cast<std::uint32_t>(n),
                  std::vector<std::uint8_t>(data.begin() + static_cast<std::ptrdiff_t>(off),
                                            data.begin() + static_cast<std::ptrdiff_t>(off + n))};
    send_locked(b);
    if (data.empty()) break;
  }
}

void ClientSession::backdoor_read(std::uint32_t chip, std::uint64_t addr, std::span<std::uint8_t> out) {
  std::lock_guard lk(m_mutex);
  constexpr std::size_t kPiece = 1u << 20;
  for (std::size_t off = 0; off < out.size(); off += kPiece) {
    const std::size_t n = std::min(kPiece, out.size() - off);
    send_locked(BackdoorMsg{chip, addr + off, false, static_cast<std::uint32_t>(n), {}});
    Message m = receive_answer_locked();
    ++m_round_trips;
    auto* b = std::get_if<BackdoorMsg>(&m);
    if (!b || b->data.size() != n) fail_locked("bad answer to a BACKDOOR read");
    std::copy(b->data.begin(), b->data.end(), out.begin() + static_cast<std::ptrdiff_t>(off));
  }
}

void ClientSession::bye() {
  std::lock_guard lk(m_mutex);
  if (m_closed || !m_failed.empty() || !m_channel) return;
  send_locked(ByeMsg{});
  Message m = receive_answer_locked();
  m_closed = true;
  m_channel->close();
  if (!std::holds_alternative<ByeMsg>(m))
    throw TransportError("transport: server " + m_opts.address + " answered BYE with " +
                         type_name(static_cast<std::uint8_t>(type_of(m))));
}

void ClientSession::give_up(const std::string& why) {
  std::lock_guard lk(m_mutex);
  if (m_closed || !m_failed.empty() || !m_channel) return;
  m_closed = true;
  try {
    m_channel->send(ErrorMsg{why}, m_opts.reply_timeout);
  } catch (const TransportError&) {
    // The server is gone already: nobody to tell.
  }
  m_channel->close();
}

std::unique_ptr<MemoryTarget> ClientSession::make_memory(std::shared_ptr<ClientSession> s, std::uint32_t chip,
                                                         const std::string& name) {
  return std::make_unique<RemoteMemoryTarget>(std::move(s), chip, name);
}

std::unique_ptr<Fabric> ClientSession::make_fabric(std::shared_ptr<ClientSession> s) {
  return std::make_unique<RemoteFabric>(std::move(s));
}

}  // namespace mxc::transport
