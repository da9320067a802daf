#include "bridge/handshake_checker.h"

#include <algorithm>
#include <cstring>

namespace mxc {

std::size_t HandshakeChecker::add_channel(std::string name) {
  Channel c;
  c.name = std::move(name);
  m_channels.push_back(std::move(c));
  return m_channels.size() - 1;
}

std::string payload_hex(std::span<const std::uint8_t> bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s = "0x";
  if (bytes.empty()) return s + "(empty)";
  for (std::size_t i = bytes.size(); i-- > 0;) {
    s += kDigits[bytes[i] >> 4];
    s += kDigits[bytes[i] & 15];
  }
  return s;
}

void HandshakeChecker::observe_reset(std::size_t channel, bool valid, std::uint64_t edge) {
  Channel& c = m_channels[channel];
  if (!valid || c.valid_in_reset) return;
  c.valid_in_reset = true;
  report({0, "handshake " + c.name, "reset edge " + std::to_string(edge), "valid during reset", "valid=0", "valid=1"});
}

void HandshakeChecker::check_stalled(Channel& c, bool valid, std::span<const std::uint8_t> payload,
                                     std::uint64_t cycle, Time now) {
  if (!valid) {
    c.stalled = false;
    report({now, "handshake " + c.name, "cycle " + std::to_string(cycle), "valid withdrawn before handshake",
            "valid=1 " + payload_hex(c.held), "valid=0"});
    return;
  }
  if (payload.size() == c.held.size() && std::memcmp(payload.data(), c.held.data(), payload.size()) == 0) return;
  // Name the lowest differing byte so a wide payload's culprit field can be found.
  const std::size_t n = std::min(payload.size(), c.held.size());
  std::size_t first = 0;
  while (first < n && payload[first] == c.held[first]) ++first;
  std::string where = first < n ? "byte " + std::to_string(first) + " differs"
                                : "size " + std::to_string(payload.size()) + " bytes, was " +
                                      std::to_string(c.held.size());
  report({now, "handshake " + c.name, "cycle " + std::to_string(cycle), "payload changed while stalled",
          payload_hex(c.held), payload_hex(payload) + " (" + where + ")"});
  // Hold the new payload: one report per change, not one per stalled cycle.
  c.held.assign(payload.begin(), payload.end());
}

}  // namespace mxc
