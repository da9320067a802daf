#include "bridge/transport/address.h"

#include <stdexcept>

namespace mxc::transport {

std::string Address::to_string() const {
  if (kind == Kind::kUnix) return "unix:" + path;
  const bool v6 = host.find(':') != std::string::npos;
  return "tcp://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Address parse_address(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return std::invalid_argument("address '" + text + "': " + why +
                                 " (expected tcp://HOST:PORT, e.g. tcp://127.0.0.1:7000, or unix:PATH)");
  };
  Address a;
  if (text.rfind("unix:", 0) == 0) {
    a.kind = Address::Kind::kUnix;
    a.path = text.substr(5);
    if (a.path.rfind("//", 0) == 0) a.path = a.path.substr(2);  // also accept unix://PATH
    if (a.path.empty()) throw bad("empty socket path");
    if (a.path.size() >= 108) throw bad("socket path longer than 107 characters");
    return a;
  }
  if (text.rfind("tcp://", 0) != 0) throw bad("unknown scheme");
  const std::string rest = text.substr(6);
  std::string port;
  if (!rest.empty() && rest[0] == '[') {
    const auto close = rest.find(']');
    if (close == std::string::npos || close + 1 >= rest.size() || rest[close + 1] != ':') throw bad("bad [IPv6]:PORT");
    a.host = rest.substr(1, close - 1);
    port = rest.substr(close + 2);
  } else {
    const auto colon = rest.rfind(':');
    if (colon == std::string::npos) throw bad("missing :PORT");
    a.host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (a.host.empty()) a.host = "127.0.0.1";
  if (a.host == "localhost") a.host = "127.0.0.1";
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    throw bad("port '" + port + "' is not a number");
  const unsigned long p = std::stoul(port);
  if (p > 65535) throw bad("port " + port + " is out of range");
  a.port = static_cast<std::uint16_t>(p);
  return a;
}

}  // namespace mxc::transport
