#include "bridge/transport/server.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <list>
#include <map>
#include <set>
#include <ostream>
#include <system_error>
#include <tuple>

namespace mxc::transport {

namespace {

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "%016" PRIx64, v);
  return b;
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

struct Refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace

Server::Server(ServerOptions opts) : m_opts(std::move(opts)), m_hash(config_hash(m_opts.system)) {
  if (!m_opts.serve.memories && (!m_opts.serve.fabric || m_opts.system.chips < 2))
    throw std::invalid_argument("a server of the fabric only needs a system of two or more chips (a single chip has "
                                "no fabric), and one of nothing serves nothing");
  if (m_opts.max_clients == 0) throw std::invalid_argument("a server of at most 0 clients at once serves nobody");
}

Server::~Server() = default;

std::string Server::listen(const std::string& address) {
  m_listener = std::make_unique<Listener>(parse_address(address));
  return m_listener->address().to_string();
}

void Server::log(const std::string& line) {
  std::lock_guard lk(m_mutex);
  write_log(line);
}

void Server::write_log(const std::string& line) {
  if (m_opts.log) *m_opts.log << line << std::endl;
}

std::uint64_t Server::number_session(const std::string& what) {
  // One lock for both, so that sessions starting together are logged in the order of their numbers.
  std::lock_guard lk(m_mutex);
  const std::uint64_t n = ++m_sessions;
  write_log("session " + std::to_string(n) + ": " + what);
  return n;
}

std::vector<SessionOutcome> Server::outcomes() const {
  std::lock_guard lk(m_mutex);
  return m_outcomes;
}

// A refused connection: ERROR is sent at once, and the socket stays open (what the peer sends
// is read and dropped) until the peer closes it or a second passes, so the peer's HELLO, sent
// before it reads, neither fails nor resets the connection before the ERROR is read.
struct Server::Refusal {
  std::shared_ptr<Channel> ch;
  std::chrono::steady_clock::time_point until;
};

void Server::refuse(std::shared_ptr<Channel> ch, const std::string& why, std::deque<Refusal>& refusing) {
  log("connection from " + ch->peer() + " refused: " + why);
  try {
    ch->send(ErrorMsg{why}, Millis(50));
  } catch (const std::exception&) {
    return;  // the peer is gone or does not read
  }
  constexpr std::size_t kMaxRefusing = 64;  // a flood cannot make these hold descriptors either
  if (refusing.size() >= kMaxRefusing) refusing.pop_front();
  refusing.push_back(Refusal{std::move(ch), std::chrono::steady_clock::now() + std::chrono::seconds(1)});
}

void Server::serve() {
  if (!m_listener) throw std::logic_error("Server::serve before listen");
  struct Running {
    std::thread thread;
    bool said_nothing = false;  // closed or dropped before a single byte: not a session
    std::atomic<bool> done{false};
    std::atomic<std::uint64_t> number{0};  // its session number once its HELLO came, 0 before
  };
  std::list<Running> sessions;  // joined as they end, so a long-running server holds only live ones
  struct JoinAll {              // also if this throws: a joinable std::thread must not be destroyed
    std::list<Running>& sessions;
    ~JoinAll() {
      for (auto& r : sessions)
        if (r.thread.joinable()) r.thread.join();
    }
  } join_all{sessions};
  std::deque<Refusal> refusing;
  std::string accept_error;     // logged once per run of failures
  std::uint64_t accepted = 0;   // sessions, counted for max_sessions
  while (!m_stop && !(m_opts.stop && m_opts.stop->load())) {
    for (auto it = sessions.begin(); it != sessions.end();) {
      if (!it->done) {
        ++it;
        continue;
      }
      it->thread.join();
      if (it->said_nothing) --accepted;  // e.g. another server's check whether this one is alive
      it = sessions.erase(it);
    }
    // Every session of --sessions taken: the server ends with the last of them. A client that
    // connects meanwhile is told so at once (it waited in the backlog, then read the close as a
    // dead peer), once every taken connection has said HELLO: until then one may turn out to
    // be no session (another server checking this one is alive), and a connection waits in
    // the backlog for its place, looked at every 20 ms.
    const bool spent = m_opts.max_sessions && accepted >= m_opts.max_sessions;
    if (spent && sessions.empty()) break;
    if (spent && std::any_of(sessions.begin(), sessions.end(), [](const Running& r) { return r.number == 0; })) {
      std::this_thread::sleep_for(Millis(20));
      continue;
    }
    if (spent) abandon_forming();  // no client can join it any more
    const auto now = std::chrono::steady_clock::now();
    for (auto it = refusing.begin(); it != refusing.end();) {
      bool open = now < it->until;
      try {
        for (int i = 0; open && i < 16 && it->ch->try_receive(); ++i) {
        }
      } catch (const TransportError&) {
        open = false;  // the peer closed (or sent garbage)
      }
      it = open ? it + 1 : refusing.erase(it);
    }
    std::unique_ptr<Channel> ch;
    try {
      ch = m_listener->accept(Millis(spent ? 20 : 100));
    } catch (const TransportError& e) {
      // Typically out of file descriptors: the connection waits in the backlog; retry shortly.
      if (accept_error != e.what()) log(std::string(e.what()) + "; retrying every 100 ms");
      accept_error = e.what();
      std::this_thread::sleep_for(Millis(100));
      continue;
    }
    if (!ch) continue;
    accept_error.clear();
    if (spent) {
      refuse(std::move(ch),
             "server ending: it serves " + std::to_string(m_opts.max_sessions) +
                 " session(s) (mxcosim serve --sessions) and has taken them all; start another server",
             refusing);
      continue;
    }
    if (sessions.size() >= m_opts.max_clients) {
      refuse(std::move(ch),
             "server busy: it serves at most " + std::to_string(m_opts.max_clients) +
                 " clients at once (mxcosim serve --max-clients); try again later",
             refusing);
      continue;
    }
    std::shared_ptr<Channel> c(std::move(ch));
    Running& r = sessions.emplace_back();
    try {
      r.thread = std::thread([this, &r, c] {
        try {
          const double cpu0 = thread_cpu_seconds();
          SessionOutcome out = run_session(*c, r.number);
          const std::uint64_t n = r.number;
          out.cpu_seconds = thread_cpu_seconds() - cpu0;
          c->close();
          if (n == 0 && c->bytes_received() == 0) {
            // Closed before a single byte (say another server checking whether this one is
            // alive): no session, so no line of one; run_session logged one that timed out.
            r.said_nothing = true;
          } else {
            const std::string end = (out.ok ? "done" : "failed: " + out.error) + " after " +
                                    std::to_string(out.messages) + " messages" + (out.lookahead ? " (lookahead)" : "");
            // Bytes that never made a message (garbage, part of a HELLO): a session, numbered
            // now, whose one line names the peer, as no "connected" line did.
            if (n == 0)
              number_session("connection from " + c->peer() + " " + end);
            else
              log("session " + std::to_string(n) + ": " + end);
            std::lock_guard lk(m_mutex);
            m_outcomes.push_back(std::move(out));
          }
        } catch (...) {
          // run_session reports its own failures; this is only out of memory, which must not
          // end the server with std::terminate.
        }
        r.done = true;
      });
    } catch (const std::system_error& e) {
      sessions.pop_back();
      refuse(std::move(c), std::string("server cannot start a session: ") + e.what() + "; try again later",
             refusing);
      continue;
    }
    ++accepted;
  }
  // Stopped with sessions running: say what the server still waits for, which may be long.
  // Sessions: a connection that has said HELLO (one that has not may be another server's probe).
  const auto running =
      std::count_if(sessions.begin(), sessions.end(), [](const Running& r) { return !r.done && r.number != 0; });
  if (running > 0 && (m_stop || (m_opts.stop && m_opts.stop->load())))
    log("stopping: no new connections; waiting for " + std::to_string(running) + " running session" +
        (running == 1 ? "" : "s") + " to end");
  m_listener->close();  // refuse connections at once while the last sessions end
  abandon_forming();
}

void Server::abandon_forming() {
  // A split run still forming can get no more clients: its joined ones are told now rather
  // than at the end of the join timeout.
  std::lock_guard lk(m_mutex);
  if (m_forming)
    m_forming->abandon("the server takes no more clients (stopped, or its --sessions all taken): none can join "
                       "the split run");
}

std::pair<std::shared_ptr<SplitGroup>, std::size_t> Server::join_split(const std::vector<std::uint32_t>& chips,
                                                                        const std::string& terms) {
  std::lock_guard lk(m_mutex);
  // A run that failed while its clients were joining (one left, or the others never came) is
  // over: the next client starts a new one rather than meet its chips taken.
  if (!m_forming || m_forming->failed()) m_forming = std::make_shared<SplitGroup>(m_opts.system, m_opts.read_timeout);
  auto group = m_forming;
  const std::size_t member = group->join(chips, terms);
  if (group->complete()) m_forming.reset();  // the next split client starts another run
  return {group, member};
}

SessionOutcome Server::run_session(Channel& ch, std::atomic<std::uint64_t>& session) {
  SessionOutcome out;
  const ServedSystem& sys = m_opts.system;
  std::map<std::uint32_t, std::unique_ptr<MemoryTarget>> mems;  // ordered: deterministic teardown
  std::set<std::uint32_t> finished;  // chips whose memory a FINISH ended (BYE must not end it again)
  std::unique_ptr<Fabric> fabric;
  std::vector<ResponseMsg> completions;
  std::vector<IciPacket> deliveries;
  Time last = 0;
  // A split run's client: its group, and the group learns when the session ends.
  std::shared_ptr<SplitGroup> group;
  std::size_t member = 0;
  struct Leave {
    std::shared_ptr<SplitGroup>& group;
    std::size_t& member;
    SessionOutcome& out;
    ~Leave() {
      if (group) group->leave(member, out.ok ? "" : out.error);
    }
  } leave{group, member, out};
  std::vector<PacketMsg> split_deliveries;
  const auto keepalive = [&] { ch.send(HeartbeatMsg{}, m_opts.write_timeout); };
  // A call into the group: bad input from this client is refused, a failed run reported.
  const auto in_group = [](auto&& call) {
    try {
      return call();
    } catch (const TransportError&) {
      throw;
    } catch (const std::invalid_argument& e) {
      throw Refused(e.what());
    } catch (const std::runtime_error& e) {
      throw Refused(std::string("split run failed: ") + e.what());
    }
  };
  // Answers are queued and written together when the session next waits for input (Channel::receive).
  const auto reply = [&](const Message& m) { ch.queue(m); };
  const auto reply_now = [&](const Message& m) {
    ch.queue(m);
    ch.flush(m_opts.write_timeout);
  };
  try {
    Message first;
    try {
      first = ch.receive(m_opts.hello_timeout);
    } catch (const TransportTimeout&) {
      const std::string why =
          "no HELLO within " + seconds_text(m_opts.hello_timeout) + " of connecting (mxcosim serve --hello-timeout)";
      if (ch.bytes_received() == 0) log("connection from " + ch.peer() + ": " + why + "; closed, not a session");
      throw Refused(why);
    }
    // A session from here on: a connection that closes before saying anything is none.
    session = number_session("connected from " + ch.peer());
    ++out.messages;
    const Hello* h = std::get_if<Hello>(&first);
    if (!h) throw Refused("expected HELLO as the first message, got " +
                          type_name(static_cast<std::uint8_t>(type_of(first))));
    if (h->version != kProtocolVersion)
      throw Refused("protocol version " + std::to_string(h->version) + " is not supported (this server speaks " +
                    std::to_string(kProtocolVersion) + ")");
    if (h->role != Role::kClient) throw Refused("peer says it is a server, expected a client");
    if (h->config_hash != m_hash)
      throw Refused("config hash " + hex(h->config_hash) + " differs from the server's " + hex(m_hash) +
                    ": client and server load different systems (the server's: " + describe(m_opts.system) +
                    ")");
    if (h->seed != m_opts.seed)
      throw Refused("seed " + std::to_string(h->seed) + " differs from the server's seed " +
                    std::to_string(m_opts.seed));
    const bool split = (h->flags & kHelloSplit) != 0;
    const ServedParts& serve = m_opts.serve;
    if (split) {
      if (sys.chips < 2) throw Refused("a split run needs a system of two or more chips");
      if (!serve.fabric)
        throw Refused("a split run needs the server's fabric, and this server serves only the memories "
                      "(mxcosim serve --serve memories)");
      try {
        std::tie(group, member) = join_split(h->chips, h->split_terms);
      } catch (const std::invalid_argument& e) {
        throw Refused(std::string("split run: ") + e.what());
      }
    }
    for (std::uint32_t c : h->chips) {
      if (c >= sys.chips)
        throw Refused("chip " + std::to_string(c) + " asked for, but the served system has " +
                      std::to_string(sys.chips) + " chips");
      if (mems.count(c)) throw Refused("chip " + std::to_string(c) + " asked for twice");
      if (!serve.memories) continue;  // the client simulates its memories itself
      auto mem = make_served_memory(sys, c, "served.chip" + std::to_string(c) + ".mem");
      mem->set_completion([&completions, c](const MemResponse& r) { completions.push_back({c, r}); });
      mems.emplace(c, std::move(mem));
    }
    if (!split && serve.fabric) fabric = make_served_fabric(sys);
    if (fabric) fabric->set_delivery([&deliveries](const IciPacket& p) { deliveries.push_back(p); });
    // Lookahead mode: the client mirrors the contract, so requests need no ACK
    // and completions are pushed as soon as they are final (docs/transport.md).
    const auto contract = fixed_latency_contract(sys);
    const bool lookahead = serve.memories && (h->flags & kHelloLookahead) && contract && contract->capacity > 0;
    out.lookahead = lookahead;
    Hello me;
    if (lookahead) {
      me.mem_latency_ps = contract->latency_ps;
      me.mem_capacity = contract->capacity;
    }
    me.config_hash = m_hash;
    me.seed = m_opts.seed;
    me.role = Role::kServer;
    // What this server hosts for the client: the memories of these chips (none: the
    // client builds its own) and a fabric of fabric_chips chips (0: none).
    if (serve.memories) me.chips = h->chips;
    me.fabric_chips = group ? group->fabric_chips() : fabric ? fabric->num_chips() : 0;
    reply(me);

    const auto memory = [&](std::uint32_t chip) -> MemoryTarget& {
      auto it = mems.find(chip);
      if (!serve.memories)
        throw Refused("message for the memory of chip " + std::to_string(chip) +
                      ", but this server serves only the fabric (mxcosim serve --serve fabric)");
      if (it == mems.end()) throw Refused("message for chip " + std::to_string(chip) + ", which is not in this session");
      return *it->second;
    };
    const auto need_fabric = [&]() -> Fabric& {
      if (!fabric)
        throw Refused(sys.chips < 2 ? "PACKET for a single-chip system (no fabric)"
                                    : "PACKET, but this server serves only the memories (mxcosim serve --serve memories)");
      return *fabric;
    };
    for (;;) {
      Message m = ch.receive(m_opts.read_timeout);
      ++out.messages;
      if (m_opts.drop_after && out.messages >= m_opts.drop_after) {
        ch.close();  // as if the process died
        out.error = "dropped (fault injection)";
        return out;
      }
      if (m_opts.stall_after && out.messages >= m_opts.stall_after) {
        // As if the process hung: read and ignore until the client gives up.
        try {
          for (;;) ch.receive(m_opts.read_timeout);
        } catch (const std::exception&) {
        }
        out.error = "stalled (fault injection)";
        return out;
      }
      if (auto* q = std::get_if<RequestMsg>(&m)) {
        MemoryTarget& mem = memory(q->chip);
        // Its data comes back in one frame: a larger request could never be
        // answered, and its buffer would be the peer's to size.
        if (q->req.bytes > kMaxFrameBytes / 2)
          throw Refused("REQUEST of " + std::to_string(q->req.bytes) + " bytes (at most " +
                        std::to_string(kMaxFrameBytes / 2) + ")");
        if (lookahead && !q->probe) {
          if (q->time < last) throw Refused("REQUEST at " + std::to_string(q->time) + " ps is in the past");
          last = q->time;
          if (!mem.send(q->req, q->time))
            throw Refused("memory of chip " + std::to_string(q->chip) + " refused request " +
                          std::to_string(q->req.id) + " that the client, by the fixed-latency contract, sent to a free slot");
          // Everything up to now + latency is final: a later request completes after it.
          completions.clear();
          mem.advance_to(q->time + contract->latency_ps);
          for (const auto& r : completions) ch.queue(r);
          continue;
        }
        AckMsg a;
        if (q->probe) {
          a.accepted = mem.can_accept(q->req);
        } else {
          if (q->time < last) throw Refused("REQUEST at " + std::to_string(q->time) + " ps is in the past");
          last = q->time;
          a.accepted = mem.send(q->req, q->time);
        }
        a.next_event = mem.next_event_time();
        reply(a);
      } else if (auto* p = std::get_if<PacketMsg>(&m); p && group) {
        // A split run's packet: posted, no ACK; the group numbers and offers it in the global order.
        if (p->probe) throw Refused("PACKET probe in a split run (the server queues every packet)");
        in_group([&] { group->post(member, p->time, std::move(p->pkt)); });
      } else if (auto* w = std::get_if<WindowMsg>(&m)) {
        if (!group) throw Refused("WINDOW outside a split run");
        split_deliveries.clear();
        const WindowMsg answer = in_group([&] { return group->window(member, *w, split_deliveries, keepalive); });
        for (const auto& d : split_deliveries) reply(d);
        reply(answer);
      } else if (auto* r = std::get_if<ReportMsg>(&m)) {
        if (!group) throw Refused("REPORT outside a split run");
        if (r->parts.size() != 1)
          throw Refused("REPORT from a client carries " + std::to_string(r->parts.size()) + " parts, expected 1");
        std::vector<std::string> parts =
            in_group([&] { return group->report(member, std::move(r->parts[0]), keepalive); });
        for (ReportMsg& frame : report_frames(std::move(parts))) reply(frame);
      } else if (auto* p = std::get_if<PacketMsg>(&m)) {
        Fabric& fab = need_fabric();
        if (p->pkt.src >= fab.num_chips() || p->pkt.dst >= fab.num_chips())
          throw Refused("PACKET from chip " + std::to_string(p->pkt.src) + " to chip " + std::to_string(p->pkt.dst) +
                        " outside the fabric of " + std::to_string(fab.num_chips()) + " chips");
        AckMsg a;
        if (p->probe) {
          a.accepted = fab.can_inject(p->pkt);
        } else {
          if (p->time < last) throw Refused("PACKET at " + std::to_string(p->time) + " ps is in the past");
          last = p->time;
          a.accepted = fab.inject(p->pkt, p->time);
        }
        a.next_event = fab.next_event_time();
        reply(a);
      } else if (auto* s = std::get_if<SyncMsg>(&m)) {
        if (group && s->target == kFabricTarget)
          throw Refused("SYNC of the fabric in a split run (WINDOW advances it)");
        Component& target = s->target == kFabricTarget ? static_cast<Component&>(need_fabric())
                                                       : static_cast<Component&>(memory(s->target));
        if (s->time != kNever) {
          if (s->time < last) throw Refused("SYNC to " + std::to_string(s->time) + " ps is in the past");
          last = s->time;
          completions.clear();
          deliveries.clear();
          target.advance_to(s->time);
          for (const auto& r : completions) reply(r);
          for (const auto& d : deliveries) reply(PacketMsg{s->time, false, d});
        }
        reply(SyncMsg{s->target, target.next_event_time()});
      } else if (auto* b = std::get_if<BackdoorMsg>(&m)) {
        MemoryTarget& mem = memory(b->chip);
        if (b->write) {
          mem.backdoor_write(b->addr, b->data);
        } else {
          if (b->bytes > kMaxFrameBytes / 2) throw Refused("BACKDOOR read of " + std::to_string(b->bytes) + " bytes");
          BackdoorMsg r = *b;
          r.data.assign(b->bytes, 0);
          mem.backdoor_read(b->addr, r.data);
          reply(r);
        }
      } else if (auto* f = std::get_if<FinishMsg>(&m)) {
        MemoryTarget& mem = memory(f->chip);
        if (!finished.insert(f->chip).second) throw Refused("FINISH of chip " + std::to_string(f->chip) + " twice");
        if (f->time < last) throw Refused("FINISH at " + std::to_string(f->time) + " ps is in the past");
        last = f->time;
        reply(finish_and_report(mem, f->chip, f->time));
      } else if (std::holds_alternative<HeartbeatMsg>(m)) {
        // Only proves the client is alive.
      } else if (std::holds_alternative<ByeMsg>(m)) {
        for (auto& [c, mem] : mems)
          if (!finished.count(c)) finish_served_memory(*mem, last);
        reply_now(ByeMsg{});
        out.ok = true;
        return out;
      } else if (auto* e = std::get_if<ErrorMsg>(&m)) {
        out.error = "client gave up: " + e->text;
        return out;
      } else {
        throw Refused("unexpected " + type_name(static_cast<std::uint8_t>(type_of(m))) + " from a client");
      }
    }
  } catch (const Refused& e) {
    out.error = e.what();
    try {
      reply_now(ErrorMsg{e.what()});
    } catch (const std::exception&) {
    }
  } catch (const TransportError& e) {
    out.error = e.what();
    // A client dropped for its silence (stopped, not dead) would otherwise
    // read the closed connection as the server's death: tell it why. To a
    // dead one the message goes nowhere.
    try {
      reply_now(ErrorMsg{"the server ended this session: " + out.error});
    } catch (const std::exception&) {
    }
  } catch (const std::exception& e) {
    // A model failed (bad request, timing violation): tell the client why.
    out.error = std::string("server model error: ") + e.what();
    try {
      reply_now(ErrorMsg{out.error});
    } catch (const std::exception&) {
    }
  }
  return out;
}

}  // namespace mxc::transport
