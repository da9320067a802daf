#pragma once
// A Server on a Unix socket in a thread of the test process, stopped and
// joined when the fixture goes out of scope.
#include <unistd.h>

#include <string>
#include <thread>

#include "bridge/transport/server.h"

namespace mxc::transport::testing {

inline std::string socket_path(const std::string& tag) {
  return "/tmp/mxcosim-test-" + std::to_string(::getpid()) + "-" + tag + ".sock";
}

struct ServerThread {
  Server server;
  std::string address;
  std::thread thread;

  ServerThread(ServerOptions opts, const std::string& tag) : server(std::move(opts)) {
    address = server.listen("unix:" + socket_path(tag));
    thread = std::thread([this] { server.serve(); });
  }
  ~ServerThread() { join(); }
  /// Stops accepting and waits for running sessions to end.
  void join() {
    server.stop();
    if (thread.joinable()) thread.join();
  }
};

}  // namespace mxc::transport::testing
