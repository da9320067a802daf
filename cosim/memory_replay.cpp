#include "cosim/memory_replay.h"

#include <stdexcept>
#include <utility>

namespace mxc {

MemoryCallLog::MemoryCallLog() = default;
MemoryCallLog::~MemoryCallLog() = default;

void MemoryCallLog::add_response(const MemResponse& r) {
  // A call whose responses do not all fit is never published: the log ends before it.
  m_truncated = m_truncated || m_responses.full();
  if (m_truncated) return;
  MemResponse kept;  // every field but the data, which would cost an allocation
  kept.id = r.id;
  kept.addr = r.addr;
  kept.bytes = r.bytes;
  kept.write = r.write;
  kept.source = r.source;
  kept.issue = r.issue;
  kept.accept = r.accept;
  kept.complete = r.complete;
  m_responses.push(std::move(kept));
}

void MemoryCallLog::add_call(Call c) {
  if (m_truncated) return;
  c.first_response = m_call_responses;
  c.responses = static_cast<std::uint32_t>(m_responses.written() - m_call_responses);
  m_call_responses = m_responses.written();
  m_calls.push(std::move(c));
  m_published_calls.store(m_calls.written(), std::memory_order_release);
  m_truncated = m_calls.full() || m_responses.full();
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
  MemoryCallLog::Call c;
  c.kind = MemoryCallLog::Kind::kAdvance;
  c.now = now;
  c.next_event = m_inner->next_event_time();
  m_log.add_call(c);
}

bool RecordingMemory::send(const MemRequest& req, Time now) {
  const bool accepted = m_inner->send(req, now);
  MemoryCallLog::Call c;
  c.kind = MemoryCallLog::Kind::kSend;
  c.accepted = accepted;
  c.now = now;
  c.next_event = m_inner->next_event_time();
  c.id = req.id;
  c.addr = req.addr;
  c.bytes = req.bytes;
  c.source = req.source;
  c.write = req.write;
  c.issue = req.issue;
  m_log.add_call(c);
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
  m_next_event = c.next_event;
  for (std::uint32_t i = 0; i < c.responses; ++i) complete(m_log.response(c.first_response + i));
}

void ReplayMemory::advance_to(Time now) {
  if (!m_diverged) {
    const MemoryCallLog::Call* c = next_call();
    if (c && c->kind == MemoryCallLog::Kind::kAdvance && c->now == now) return replay(*c);
    diverge();
  }
  m_real->advance_to(now);
}

bool ReplayMemory::send(const MemRequest& req, Time now) {
  if (!m_diverged) {
    const MemoryCallLog::Call* c = next_call();
    if (c && c->kind == MemoryCallLog::Kind::kSend && c->now == now && c->id == req.id && c->addr == req.addr &&
        c->bytes == req.bytes && c->source == req.source && c->write == req.write && c->issue == req.issue) {
      replay(*c);
      return c->accepted;
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
  m_rebuilding = true;
  for (std::uint64_t i = 0; i < m_pos; ++i) {
    const MemoryCallLog::Call& c = m_log.call(i);
    bool same = true;
    if (c.kind == MemoryCallLog::Kind::kAdvance) {
      m_real->advance_to(c.now);
    } else {
      MemRequest req;
      req.id = c.id;
      req.addr = c.addr;
      req.bytes = c.bytes;
      req.source = c.source;
      req.write = c.write;
      req.issue = c.issue;
      if (req.write) req.data.assign(req.bytes, 0);  // no data was logged; the timing needs none
      same = m_real->send(req, c.now) == c.accepted;
    }
    // The memory must be deterministic for the replay to stand for it.
    if (!same || m_real->next_event_time() != c.next_event)
      throw std::logic_error(m_real->name() + ": the memory answered logged call " + std::to_string(i) +
                             " differently when it was replayed");
  }
  m_rebuilding = false;
}

}  // namespace mxc
