#include "cosim/memory_replay.h"

#include <stdexcept>
#include <utility>

namespace mxc {

static_assert(sizeof(MemoryCallLog::Call) == 16);

MemoryCallLog::MemoryCallLog() = default;
MemoryCallLog::~MemoryCallLog() = default;

void MemoryCallLog::add_response(const MemResponse& r) {
  // A call whose responses do not all fit is never published: the log ends before it.
  m_truncated = m_truncated || m_responses.full();
  if (m_truncated) return;
  m_responses.push_back(Response{r.id, r.addr, r.issue, r.accept, r.complete, r.bytes, r.source, r.write});
}

void MemoryCallLog::add_send(const MemRequest& req, Time now, bool accepted, Time next_event) {
  m_truncated = m_truncated || m_requests.full();
  if (m_truncated) return;
  m_requests.push_back(Request{req.id, req.addr, req.issue, req.bytes, req.source, req.write,
                               req.write ? byte_mask_digest(req.byte_enable) : 0});
  push_call(Kind::kSend, accepted, now, next_event);
}

void MemoryCallLog::add_advance(Time now, Time next_event) { push_call(Kind::kAdvance, false, now, next_event); }

void MemoryCallLog::push_call(Kind kind, bool accepted, Time now, Time next_event) {
  if (m_truncated) return;
  const std::uint64_t responses = m_responses.size() - m_call_responses;
  // A call the compact entry cannot hold ends the log like a full one.
  const bool fits = responses < (std::uint64_t{1} << 30) &&
                    (next_event == kNever || (next_event >= now && next_event - now < Call::kNoNext));
  if (!fits) {
    m_truncated = true;
    return;
  }
  Call c;
  c.now = now;
  c.next_after = next_event == kNever ? Call::kNoNext : static_cast<std::uint32_t>(next_event - now);
  c.packed = static_cast<std::uint32_t>(responses << 2) | std::uint32_t{accepted} << 1 |
             std::uint32_t{kind == Kind::kSend};
  m_calls.push_back(c);
  m_call_responses = m_responses.size();
  m_published_calls.store(m_calls.size(), std::memory_order_release);
  m_truncated = m_calls.full() || m_requests.full() || m_responses.full();
}

RecordingMemory::RecordingMemory(std::unique_ptr<MemoryTarget> inner) : m_inner(std::move(inner)) {
  m_log.set_initial_next_event(m_inner->next_event_time());
  m_inner->set_completion([this](const MemResponse& r) {
    m_log.add_response(r);
    complete(r);
  });
}

RecordingMemory::~RecordingMemory() { m_inner->set_completion(nullptr); }

void RecordingMemory::advance_to(Time now) {
  m_inner->advance_to(now);
  m_log.add_advance(now, m_inner->next_event_time());
}

bool RecordingMemory::send(const MemRequest& req, Time now) {
  const bool accepted = m_inner->send(req, now);
  m_log.add_send(req, now, accepted, m_inner->next_event_time());
  return accepted;
}

ReplayMemory::ReplayMemory(const MemoryCallLog& log, std::unique_ptr<MemoryTarget> real)
    : m_log(log), m_real(std::move(real)), m_next_event(log.initial_next_event()) {
  m_real->set_completion([this](const MemResponse& r) {
    if (!m_rebuilding) complete(r);
  });
}

ReplayMemory::~ReplayMemory() { m_real->set_completion(nullptr); }

const MemoryCallLog::Call* ReplayMemory::next_call() const {
  return m_pos < m_log.published_calls() ? &m_log.call(m_pos) : nullptr;
}

void ReplayMemory::replay(const MemoryCallLog::Call& c) {
  ++m_pos;
  m_next_event = c.next_event();
  for (std::uint32_t i = 0; i < c.responses(); ++i) {
    const MemoryCallLog::Response& k = m_log.response(m_response_pos++);
    m_response.id = k.id;
    m_response.addr = k.addr;
    m_response.bytes = k.bytes;
    m_response.write = k.write;
    m_response.source = k.source;
    m_response.issue = k.issue;
    m_response.accept = k.accept;
    m_response.complete = k.complete;
    complete(m_response);
  }
}

void ReplayMemory::advance_to(Time now) {
  if (!m_diverged) {
    const MemoryCallLog::Call* c = next_call();
    if (c && c->kind() == MemoryCallLog::Kind::kAdvance && c->now == now) return replay(*c);
    diverge();
  }
  m_real->advance_to(now);
}

bool ReplayMemory::send(const MemRequest& req, Time now) {
  if (!m_diverged) {
    const MemoryCallLog::Call* c = next_call();
    if (c && c->kind() == MemoryCallLog::Kind::kSend && c->now == now &&
        MemoryCallLog::same_request(m_log.request(m_request_pos), req)) {
      ++m_request_pos;
      replay(*c);
      return c->accepted();
    }
    diverge();
  }
  return m_real->send(req, now);
}

bool ReplayMemory::can_accept(const MemRequest& req) const {
  // Not answerable from the log (it holds no state): only the real memory can say.
  if (!m_diverged) const_cast<ReplayMemory*>(this)->diverge();
  return m_real->can_accept(req);
}

void ReplayMemory::diverge() {
  m_diverged = true;
  if (m_on_diverge) m_on_diverge(m_pos);
  m_rebuilding = true;
  for (std::uint64_t i = 0, sends = 0; i < m_pos; ++i) {
    const MemoryCallLog::Call& c = m_log.call(i);
    bool same = true;
    if (c.kind() == MemoryCallLog::Kind::kAdvance) {
      m_real->advance_to(c.now);
    } else {
      const MemoryCallLog::Request& r = m_log.request(sends++);
      MemRequest req;
      req.id = r.id;
      req.addr = r.addr;
      req.bytes = r.bytes;
      req.source = r.source;
      req.write = r.write;
      req.issue = r.issue;
      if (req.write) req.data.assign(req.bytes, 0);  // no data was logged; the timing needs none
      same = m_real->send(req, c.now) == c.accepted();
    }
    // The memory must be deterministic for the replay to stand for it.
    if (!same || m_real->next_event_time() != c.next_event())
      throw std::logic_error(m_real->name() + ": the memory answered logged call " + std::to_string(i) +
                             " differently when it was replayed");
  }
  m_rebuilding = false;
}

}  // namespace mxc
