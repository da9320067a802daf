#pragma once
// Where a transport peer listens: "tcp://HOST:PORT" or "unix:PATH".
#include <cstdint>
#include <string>

namespace mxc::transport {

struct Address {
  enum class Kind { kTcp, kUnix } kind = Kind::kTcp;
  std::string host = "127.0.0.1";  ///< TCP: empty in the text means loopback.
  std::uint16_t port = 0;          ///< TCP: 0 = any free port (listening only).
  std::string path;                ///< Unix domain socket path.

  std::string to_string() const;
};

/// Parses an address; throws std::invalid_argument naming the text and what is wrong.
Address parse_address(const std::string& text);

}  // namespace mxc::transport
