#include "models/core/shared_memory.h"

#include <stdexcept>
#include <string>

namespace mxc {

class SharedMemory::Port final : public MemoryTarget {
 public:
  Port(MemoryTarget& inner, std::uint32_t source) : m_inner(inner), m_source(source) {}

  std::string name() const override { return m_inner.name() + ".port" + std::to_string(m_source); }
  Time next_event_time() const override { return kNever; }
  void advance_to(Time) override {}
  // A request already carrying this port's source goes through uncopied.
  bool can_accept(const MemRequest& req) const override {
    return req.source == m_source ? m_inner.can_accept(req) : m_inner.can_accept(stamped(req));
  }
  bool send(const MemRequest& req, Time now) override {
    return req.source == m_source ? m_inner.send(req, now) : m_inner.send(stamped(req), now);
  }
  void backdoor_write(std::uint64_t addr, std::span<const std::uint8_t> data) override { m_inner.backdoor_write(addr, data); }
  void backdoor_read(std::uint64_t addr, std::span<std::uint8_t> out) const override { m_inner.backdoor_read(addr, out); }

  std::uint32_t source() const { return m_source; }
  void deliver(const MemResponse& r) const { complete(r); }

 private:
  MemRequest stamped(const MemRequest& req) const {
    MemRequest r = req;
    r.source = m_source;
    return r;
  }
  MemoryTarget& m_inner;
  std::uint32_t m_source;
};

SharedMemory::SharedMemory(MemoryTarget& inner, std::vector<std::uint32_t> sources) : m_inner(inner) {
  for (std::uint32_t s : sources) m_ports.push_back(std::make_unique<Port>(inner, s));
  m_inner.set_completion([this](const MemResponse& r) {
    (r.write ? s_bytes_written : s_bytes_read) += r.bytes;
    for (const auto& p : m_ports)
      if (p->source() == r.source) return p->deliver(r);
    throw std::logic_error(m_inner.name() + ": completion for unknown source " + std::to_string(r.source));
  });
}

}  // namespace mxc

namespace mxc {

MemoryTarget& SharedMemory::port(std::size_t i) { return *m_ports.at(i); }

SharedMemory::~SharedMemory() = default;

}  // namespace mxc
