#pragma once
// The wire format of the co-simulation transport (docs/transport.md):
// length-prefixed frames, every integer little-endian and written field by
// field (no struct images), so both ends agree whatever their compiler.
// Frame = u32 length | u8 type | body; length counts type + body and is
// bounded by kMaxFrameBytes, so a garbage length cannot make a peer allocate
// gigabytes or wait forever for a frame that will not come.
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "models/core/ici_packet.h"
#include "models/core/mem_transaction.h"
#include "models/core/time.h"

namespace mxc::transport {

inline constexpr std::uint16_t kProtocolVersion = 6;
inline constexpr std::uint32_t kHelloMagic = 0x5343584du;  // "MXCS" as little-endian bytes
inline constexpr std::uint32_t kMaxFrameBytes = 16u << 20;
inline constexpr std::size_t kLengthBytes = 4;
/// HELLO flag (client): serve fixed-latency memories in lookahead mode (docs/transport.md).
inline constexpr std::uint8_t kHelloLookahead = 1;
/// HELLO flag (client): a split run, this client runs only the tiles of its `chips`; the other
/// chips are run by other clients sharing the server's fabric (docs/transport.md).
inline constexpr std::uint8_t kHelloSplit = 2;
inline constexpr std::uint8_t kHelloFlagsKnown = kHelloLookahead | kHelloSplit;
/// SYNC / advance target meaning the fabric rather than a chip's memory.
inline constexpr std::uint32_t kFabricTarget = 0xffffffffu;

/// A frame the peer sent cannot be decoded (bad length, unknown type, truncated, malformed).
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class MsgType : std::uint8_t {
  kHello = 1,
  kRequest = 2,
  kResponse = 3,
  kPacket = 4,
  kSync = 5,
  kAck = 6,
  kBackdoor = 7,
  kHeartbeat = 8,
  kBye = 9,
  kError = 10,
  kWindow = 11,
  kReport = 12,
  kFinish = 13,
};

enum class Role : std::uint8_t { kClient = 0, kServer = 1 };

/// First frame each way: who speaks, which protocol, which system, which seed.
struct Hello {
  std::uint32_t magic = kHelloMagic;
  std::uint16_t version = kProtocolVersion;
  std::uint64_t config_hash = 0;
  std::uint64_t seed = 0;
  Role role = Role::kClient;
  /// Client: its chips (whose memories it wants served). Server: the chips whose memories it
  /// hosts for this client, the same list, or none when it serves only the fabric.
  std::vector<std::uint32_t> chips;
  std::uint32_t fabric_chips = 0;      ///< Server: chips of its fabric (0 = it serves none).
  std::uint8_t flags = 0;              ///< Client: kHelloLookahead to ask for lookahead mode.
  /// Server: the memories' fixed-latency contract granted for lookahead mode (capacity 0 = none,
  /// every memory exchange is lock-step): each accepted request completes exactly
  /// mem_latency_ps later, in acceptance order, and a request is accepted iff fewer than
  /// mem_capacity are in flight.
  std::uint64_t mem_latency_ps = 0;
  std::uint32_t mem_capacity = 0;
  /// Client, split run: what every client of the run must agree on beyond the config hash and
  /// the seed, as "key=value" lines (the rest of the system config, the workload; see
  /// split_run_terms, cosim/served_system.h). Empty otherwise. From version 5 on.
  std::string split_terms;
};
/// Client -> server: offer (or, with probe, ask whether it would accept) a request at `time`.
struct RequestMsg {
  std::uint32_t chip = 0;
  Time time = 0;
  bool probe = false;
  MemRequest req;
};
/// Server -> client: a completion of chip `chip`'s memory.
struct ResponseMsg {
  std::uint32_t chip = 0;
  MemResponse resp;
};
/// Client -> server: inject (or probe) a packet at `time`; server -> client: a delivery.
struct PacketMsg {
  Time time = 0;
  bool probe = false;
  IciPacket pkt;
};
/// Client -> server: advance `target` to `time` (kNever: only report). Server -> client, after
/// the completions of that advance: the target's next event time (the time it grants).
struct SyncMsg {
  std::uint32_t target = 0;
  Time time = 0;
};
/// Server -> client: answer to a REQUEST or PACKET, with the target's next event time after it.
struct AckMsg {
  bool accepted = false;
  Time next_event = kNever;
};
/// Functional back door: a write (data), a read request (bytes, no data) or a read reply (data).
struct BackdoorMsg {
  std::uint32_t chip = 0;
  std::uint64_t addr = 0;
  bool write = false;
  std::uint32_t bytes = 0;
  std::vector<std::uint8_t> data;
};
/// Split run (docs/transport.md). Client -> server: every step of this client up to `time`
/// (the fabric's place at that time included) is done and its packets sent; its own next
/// event is at `next`; with `done`, its chips finished at step (end_time, end_component).
/// Server -> client, after the deliveries: run on up to `time` (the grant); with `done`, the
/// run ends after step (end_time, end_component) of the global order.
struct WindowMsg {
  Time time = 0;
  Time next = kNever;
  bool done = false;
  Time end_time = 0;
  std::uint32_t end_component = 0;
};
/// Split run, at the end: client -> server its own part of the results (one entry);
/// server -> client every client's part, in the order of their first chip, over as many
/// frames as they need (each part fits one: it came in one), `total` parts in all.
struct ReportMsg {
  std::vector<std::string> parts;
  std::uint32_t total = 1;  ///< Parts in the whole answer, this frame's and the ones after it.
};
/// `parts` as REPORT frames of at most kMaxFrameBytes each, in order: every client's part can
/// fit a frame alone, but all of them together need not.
std::vector<ReportMsg> report_frames(std::vector<std::string> parts);
/// At the end of a run, per served HBM memory (the served model keeps what one process reports from it).
/// Client -> server: finish chip `chip`'s memory at `time` (refresh accounting, the timing checker's
/// end-of-run rules). Server -> client: what the model found; the other fields of the request are 0.
struct FinishMsg {
  std::uint32_t chip = 0;
  Time time = 0;
  std::uint64_t beyond_capacity = 0;    ///< Requests that reached past the capacity (aliased).
  bool timing_checked = false;          ///< Whether the JEDEC timing checker ran.
  std::vector<std::string> violations;  ///< The checker's first violations.
  std::string error;                    ///< The model's failure at its end, as it would throw in one process.
};
struct HeartbeatMsg {};
struct ByeMsg {};
/// The sender gives up; `text` says why (the receiver reports it as is).
struct ErrorMsg {
  std::string text;
};

using Message = std::variant<Hello, RequestMsg, ResponseMsg, PacketMsg, SyncMsg, AckMsg, BackdoorMsg, HeartbeatMsg,
                             ByeMsg, ErrorMsg, WindowMsg, ReportMsg, FinishMsg>;

/// The frame's type byte of a message.
MsgType type_of(const Message& m);
/// Human-readable type name ("HELLO", ...), or "type N" for an unknown byte.
std::string type_name(std::uint8_t type);

/// A whole frame: length prefix, type, body.
std::vector<std::uint8_t> encode(const Message& m);
/// Appends a whole frame to `out` (no allocation once `out` has grown); throws std::length_error.
void encode_into(std::vector<std::uint8_t>& out, const Message& m);
/// Decodes one frame body (type byte + payload); throws ProtocolError.
Message decode_body(std::span<const std::uint8_t> body);

/// Incremental decoder over a byte stream: feed what the socket gave, take whole messages.
class FrameDecoder {
 public:
  void feed(std::span<const std::uint8_t> bytes);
  /// The next whole message, or nullopt if more bytes are needed; throws ProtocolError.
  std::optional<Message> next();
  /// Bytes held of a frame not yet complete.
  std::size_t pending() const { return m_buf.size() - m_pos; }
  /// At end of stream: throws ProtocolError if a frame was cut short.
  void finish() const;

 private:
  std::vector<std::uint8_t> m_buf;
  std::size_t m_pos = 0;
};

}  // namespace mxc::transport
