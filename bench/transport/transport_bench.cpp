// transport_bench: the speed of a co-simulation whose memories (and fabric)
// are served by a second process, against the same run in one process.
// Run on demand:  transport_bench [--repeat R] [--m M --k K --n N]
// A child process (forked before any thread exists) serves the models over
// a Unix socket and over TCP loopback. Each row runs one system both ways,
// checks that the results JSON is byte-identical, and prints the best wall
// time of R runs each way, the exchanges with the server per run, and the
// speed ratio (in-process time / two-process time; 1.0 = no cost).
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bridge/transport/client_session.h"
#include "bridge/transport/server.h"
#include "cosim/results_json.h"
#include "cosim/system_config.h"
#include "cosim/system_run.h"

using namespace mxc;
using namespace mxc::transport;

namespace {

struct Case {
  const char* name;
  const char* config;
  Time latency_ps;  // ideal memory latency: the cross-process lookahead (0 = config's)
  bool model_tiles;
};

ServedSystem served_of(const SystemConfig& c) {
  ServedSystem s;
  s.chips = c.chips;
  s.memory = c.memory;
  s.ideal_latency_ps = c.ideal_latency_ps;
  s.ideal_outstanding = c.ideal_outstanding;
  s.hbm_config = c.hbm_config;
  s.ici_config = c.ici_config;
  return s;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Serves `sys` on `address` for `sessions` connections in a child process; returns its pid.
pid_t spawn_server(const ServedSystem& sys, const std::string& address, std::uint64_t sessions, std::string& bound) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    int rc = 0;
    try {
      ServerOptions so;
      so.system = sys;
      so.max_sessions = sessions;
      Server server(so);
      const std::string where = server.listen(address) + "\n";
      if (write(fds[1], where.data(), where.size()) < 0) _exit(3);
      close(fds[1]);
      server.serve();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "server: %s\n", e.what());
      rc = 2;
    }
    _exit(rc);
  }
  close(fds[1]);
  char buf[256] = {};
  const ssize_t n = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  if (n <= 0) throw std::runtime_error("server process did not start");
  bound.assign(buf, static_cast<std::size_t>(n - 1));
  return pid;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 3;
  std::uint32_t m = 32, k = 32, n = 32;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--repeat")) repeat = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--m")) m = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--k")) k = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--n")) n = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "usage: %s [--repeat R] [--m M] [--k K] [--n N]\n", argv[0]);
      return 2;
    }
  }
  const std::string configs = std::string(MXCOSIM_SOURCE_DIR) + "/configs/";
  const std::vector<Case> cases = {
      {"1 chip RTL, ideal 100 ns", "tile4_ideal.yaml", 100'000, false},
      {"1 chip RTL, ideal 1 us", "tile4_ideal.yaml", 1'000'000, false},
      {"1 chip model, ideal 100 ns", "tile4_ideal.yaml", 100'000, true},
      {"1 chip RTL, HBM2", "tile8_hbm2.yaml", 0, false},
      {"2 chips x 2 RTL, HBM2 + ring", "chip2x2_rtl.yaml", 0, false},
  };
  std::printf("%-30s %-9s %10s %10s %9s %8s %s\n", "system (gemm " "MxKxN)", "link", "local s", "remote s", "exchanges",
              "ratio", "identical");
  bool all_identical = true;
  for (const Case& c : cases) {
    SystemRunOptions o;
    o.system = load_system_config(configs + c.config);
    o.system.rows = o.system.cols = 4;
    o.system.compare_model = false;
    if (c.latency_ps) o.system.ideal_latency_ps = c.latency_ps;
    if (c.model_tiles) o.system.tile_kinds.assign(o.system.tiles_per_chip, TileKind::kModel);
    o.workload.shape = {m, k, n, DType::kInt8};
    double local = 1e30;
    std::string want;
    for (int r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const SystemRunResult res = run_system(o);
      local = std::min(local, seconds_since(t0));
      want = results_json(o, res).dump();
    }
    for (const char* link : {"unix", "tcp"}) {
      const std::string addr = std::string(link) == "unix"
                                   ? "unix:/tmp/mxcosim-bench-" + std::to_string(getpid()) + ".sock"
                                   : "tcp://127.0.0.1:0";
      std::string bound;
      const pid_t pid = spawn_server(served_of(o.system), addr, static_cast<std::uint64_t>(repeat), bound);
      double remote = 1e30;
      std::uint64_t exchanges = 0;
      bool identical = true;
      for (int r = 0; r < repeat; ++r) {
        ClientOptions co;
        co.address = bound;
        co.system = served_of(o.system);
        co.seed = o.seed;
        SystemRunOptions ro = o;
        const auto t0 = std::chrono::steady_clock::now();
        auto s = ClientSession::connect(co);
        ro.make_memory = [s](std::uint32_t chip, const std::string& name) {
          return ClientSession::make_memory(s, chip, name);
        };
        if (o.system.chips > 1) ro.make_fabric = [s] { return ClientSession::make_fabric(s); };
        const SystemRunResult res = run_system(ro);
        s->bye();
        remote = std::min(remote, seconds_since(t0));
        exchanges = s->round_trips();
        identical = identical && results_json(ro, res).dump() == want;
      }
      int status = 0;
      waitpid(pid, &status, 0);
      all_identical = all_identical && identical;
      std::printf("%-30s %-9s %10.3f %10.3f %9llu %8.2f %s\n", c.name, link, local, remote,
                  static_cast<unsigned long long>(exchanges), local / remote, identical ? "yes" : "NO");
    }
  }
  std::printf("gemm %ux%ux%u int8, best of %d; ratio = in-process time / two-process time\n", m, k, n, repeat);
  return all_identical ? 0 : 1;
}
