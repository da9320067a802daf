#pragma once
// Handshake checker: the valid/ready rules of AXI4 (ARM IHI 0022, A3.2.1)
// on any channel. Once a source raises valid it must hold valid and every
// other signal of the channel stable until the cycle ready is also high.
//
// X and Z are not checked here: Verilator simulates two states, so a signal
// that would be X in a four-state simulator holds some 0/1 value instead and
// nothing at runtime can tell. X-dependence is caught instead by the
// randomised initial state (--x-initial unique, --x-assign unique, seeded per
// run): a design that reads uninitialised state gives seed-dependent results,
// which the data scoreboard reports (docs/checkers.md).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bridge/checker.h"

namespace mxc {

class HandshakeChecker : public Checker {
 public:
  std::string name() const override { return "handshake"; }

  /// Registers a channel; the returned index is passed to observe().
  std::size_t add_channel(std::string name);

  /// One cycle of a channel, sampled just before the rising edge. `payload`
  /// is every other signal of the channel packed into bytes (byte 0 = bits 7:0).
  void observe(std::size_t channel, bool valid, bool ready, std::span<const std::uint8_t> payload,
               std::uint64_t cycle, Time now) {
    Channel& c = m_channels[channel];
    // Fast path: an idle channel, or one that was not stalled, needs no comparison.
    if (c.stalled) check_stalled(c, valid, payload, cycle, now);
    if (!valid) return;
    if (ready) {
      ++c.s_handshakes;
      c.stalled = false;
      return;
    }
    ++c.s_stall_cycles;
    if (!c.stalled) {
      c.held.assign(payload.begin(), payload.end());
      c.stalled = true;
    }
  }

  /// A source's valid after clock edge `edge` of reset (counted from 0), so
  /// as it stands at the next edge, in reset or the first after it: it must
  /// be low (A3.1.2: a master drives ARVALID, AWVALID and WVALID low during
  /// reset, and raises them no earlier than an edge after it; ARM's checker's
  /// xVALID_RESET rules). Before the first edge a synchronous reset has not
  /// cleared the registers yet, so that edge is not checked. One report per
  /// channel.
  void observe_reset(std::size_t channel, bool valid, std::uint64_t edge);

  /// Whether observe() will look at this cycle's payload: only while valid
  /// is high and the channel stalls now or stalled in the previous cycle.
  /// Lets a caller skip packing a payload nobody compares.
  bool needs_payload(std::size_t channel, bool valid, bool ready) const {
    return valid && (!ready || m_channels[channel].stalled);
  }

  std::size_t channels() const { return m_channels.size(); }
  const std::string& channel_name(std::size_t channel) const { return m_channels.at(channel).name; }
  /// Cycles with valid and ready both high.
  std::uint64_t handshakes(std::size_t channel) const { return m_channels.at(channel).s_handshakes; }
  /// Cycles with valid high and ready low.
  std::uint64_t stall_cycles(std::size_t channel) const { return m_channels.at(channel).s_stall_cycles; }

 private:
  struct Channel {
    std::string name;
    bool stalled = false;            // last cycle had valid && !ready
    bool valid_in_reset = false;     // reported once
    std::vector<std::uint8_t> held;  // payload offered in that cycle
    std::uint64_t s_handshakes = 0;
    std::uint64_t s_stall_cycles = 0;
  };

  /// The cycle after a stall: valid still high, payload unchanged.
  void check_stalled(Channel& c, bool valid, std::span<const std::uint8_t> payload, std::uint64_t cycle, Time now);

  std::vector<Channel> m_channels;
};

/// Bytes as one hexadecimal number, most significant byte (the last) first.
std::string payload_hex(std::span<const std::uint8_t> bytes);

}  // namespace mxc
