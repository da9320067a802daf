// transport_bench: the speed of a co-simulation whose memories (and fabric)
// are served by a second process, against the same run in one process.
// Run on demand:  transport_bench [--repeat R] [--m M --k K --n N] [--only TEXT]
// A child process (forked before any thread exists) serves the models over
// a Unix socket and over TCP loopback. Each row runs one system both ways,
// checks that the results JSON is byte-identical, and prints the best wall
// time of R runs each way, the waits for the server per run, and the
// speed ratio (in-process time / two-process time; 1.0 = no cost). Each link
// is measured in lock-step mode (an exchange per model interaction, the
// protocol's fallback) and in lookahead mode (fixed-latency memories mirrored
// by the proxy, requests posted, completions pushed), side by side. A second
// table splits two-chip systems over one client process per chip (a split
// run, docs/transport.md), with the server hosting the memories and the
// fabric or the fabric only, and compares it with the same run in one process.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench/cpu_time.h"
#include "bridge/transport/client_session.h"
#include "bridge/transport/server.h"
#include "cosim/results_json.h"
#include "cosim/served_system.h"
#include "cosim/system_config.h"
#include "cosim/system_run.h"
#include "tests/transport/child_process.h"

using namespace mxc;
using namespace mxc::transport;

namespace {

struct Case {
  const char* name;
  const char* config;
  Time latency_ps;  // ideal memory latency: the cross-process lookahead (0 = config's)
  bool model_tiles;
};

std::vector<double> read_numbers(int fd) {
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  close(fd);
  std::vector<double> out;
  std::istringstream in(text);
  for (double v; in >> v;) out.push_back(v);
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Serves `sys` on `address` for `sessions` connections in a child process; returns its pid.
// Before exiting, the server writes the CPU seconds of each session (in the order they ended) to `cpu_fd`.
pid_t spawn_server(const ServedSystem& sys, const ServedParts& serve, const std::string& address,
                   std::uint64_t sessions, std::string& bound, int& cpu_fd) {
  int fds[2], cpu[2];
  if (pipe(fds) != 0 || pipe(cpu) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    close(cpu[0]);
    int rc = 0;
    try {
      ServerOptions so;
      so.system = sys;
      so.serve = serve;
      so.max_sessions = sessions;
      Server server(so);
      const std::string where = server.listen(address) + "\n";
      if (write(fds[1], where.data(), where.size()) < 0) _exit(3);
      close(fds[1]);
      server.serve();
      std::string times;
      for (const auto& o : server.outcomes()) times += std::to_string(o.cpu_seconds) + " ";
      if (write(cpu[1], times.data(), times.size()) < 0) _exit(3);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "server: %s\n", e.what());
      rc = 2;
    }
    _exit(rc);
  }
  close(fds[1]);
  close(cpu[1]);
  cpu_fd = cpu[0];
  char buf[256] = {};
  const ssize_t n = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  if (n <= 0) throw std::runtime_error("server process did not start");
  bound.assign(buf, static_cast<std::size_t>(n - 1));
  return pid;
}

// Forked children as in the transport tests (collect() returns what `body` returned).
using mxc::transport::testing::Child;
using mxc::transport::testing::collect;
using mxc::transport::testing::fork_child;

// A split run: the server and one client per chip, each a process. Returns the wall time
// (first fork to last exit), adds every process's CPU time to `cpu`, sets `waits` to the most
// times a client waited for the server (its windows, plus its memories' exchanges when they
// are served), and checks each client's results JSON against `want`.
double split_run(const SystemRunOptions& o, const ServedParts& serve, const std::string& address,
                 const std::string& want, double& cpu, unsigned long long& waits, bool& identical) {
  std::string bound;
  int cpu_fd = -1;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t server = spawn_server(served_system(o.system), serve, address, o.system.chips, bound, cpu_fd);
  std::vector<Child> clients;
  for (std::uint32_t c = 0; c < o.system.chips; ++c)
    clients.push_back(fork_child([&o, &bound, c] {
      const double c0 = bench::process_cpu_seconds();
      ClientOptions co;
      co.address = bound;
      co.system = served_system(o.system);
      co.seed = o.seed;
      co.chips = {c};
      co.split = true;
      co.split_terms = split_run_terms(o);
      auto s = ClientSession::connect(co);
      SystemRunOptions ro = o;
      use_served_models(ro, s);
      const SystemRunResult r = run_system(ro);
      s->bye();
      return std::to_string(bench::process_cpu_seconds() - c0) + " " + std::to_string(s->round_trips()) + " " +
             results_json(o, r).dump();
    }));
  for (Child& c : clients) {
    const std::string out = collect(c);
    // "CPU-seconds waits JSON"
    const std::size_t sp = out.find(' '), sp2 = sp == std::string::npos ? sp : out.find(' ', sp + 1);
    const bool same = sp2 != std::string::npos && out.compare(sp2 + 1, std::string::npos, want) == 0;
    identical = identical && same;
    if (!same) std::fprintf(stderr, "split client %s\n", out.substr(0, 200).c_str());
    cpu += std::atof(out.c_str());
    if (sp != std::string::npos) waits = std::max(waits, std::strtoull(out.c_str() + sp + 1, nullptr, 10));
  }
  int status = 0;
  waitpid(server, &status, 0);
  for (double v : read_numbers(cpu_fd)) cpu += v;
  return seconds_since(t0);
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 3;
  std::uint32_t m = 32, k = 32, n = 32;
  std::string only;  // run the rows whose name contains this
  for (int i = 1; i < argc; i += 2) {
    // Every option takes a value: a last one without it is --help or a mistake, never a full run.
    const bool help = !std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h");
    if (help || i + 1 == argc) {
      std::fprintf(help ? stdout : stderr, "usage: %s [--repeat R] [--m M] [--k K] [--n N] [--only TEXT]\n", argv[0]);
      return help ? 0 : 2;
    }
    if (!std::strcmp(argv[i], "--repeat")) repeat = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--m")) m = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--k")) k = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--n")) n = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--only")) only = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: %s [--repeat R] [--m M] [--k K] [--n N] [--only TEXT]\n", argv[0]);
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
  std::printf("%-30s %-4s %-9s %8s %9s %7s %7s %6s %6s %s\n", "system", "link", "mode", "local s", "remote s",
              "waits", "posted", "ratio", "cpu", "identical");
  bool all_identical = true;
  for (const Case& c : cases) {
    if (std::string(c.name).find(only) == std::string::npos) continue;
    SystemRunOptions o;
    o.system = load_system_config(configs + c.config);
    o.system.rows = o.system.cols = 4;
    o.system.compare_model = false;
    if (c.latency_ps) o.system.ideal_latency_ps = c.latency_ps;
    if (c.model_tiles) o.system.tile_kinds.assign(o.system.tiles_per_chip, TileKind::kModel);
    o.workload.shape = {m, k, n, DType::kInt8};
    // One server per link, and the runs interleaved (local, then each link and
    // mode, repeat): on a shared machine a load burst then hits every column
    // alike instead of one of them.
    struct Column {
      std::string link;
      bool lookahead;
      std::string address;
      double best = 1e30;
      std::vector<double> cpu;  // client CPU per repeat, then + the server's
      std::uint64_t waits = 0, posted = 0;
      bool identical = true;
    };
    std::vector<Column> cols;
    std::vector<pid_t> servers;
    std::vector<int> cpu_fds;
    for (const char* link : {"unix", "tcp"}) {
      const std::string addr = std::string(link) == "unix"
                                   ? "unix:/tmp/mxcosim-bench-" + std::to_string(getpid()) + ".sock"
                                   : "tcp://127.0.0.1:0";
      std::string bound;
      int cpu_fd = -1;
      const std::uint64_t modes = o.system.memory == "ideal" ? 2 : 1;
      servers.push_back(spawn_server(served_system(o.system), {}, addr, modes * repeat, bound, cpu_fd));
      cpu_fds.push_back(cpu_fd);
      // Only an ideal memory has the fixed-latency contract; elsewhere lookahead would be lock-step again.
      for (const bool lookahead : {false, true})
        if (!lookahead || o.system.memory == "ideal") cols.push_back({link, lookahead, bound, 1e30, {}, 0, 0, true});
    }
    double local = 1e30, local_cpu = 1e30;
    std::string want;
    for (int r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const double c0 = bench::process_cpu_seconds();
      const SystemRunResult res = run_system(o);
      local = std::min(local, seconds_since(t0));
      local_cpu = std::min(local_cpu, bench::process_cpu_seconds() - c0);
      want = results_json(o, res).dump();
      for (Column& col : cols) {
        ClientOptions co;
        co.address = col.address;
        co.system = served_system(o.system);
        co.seed = o.seed;
        co.lookahead = col.lookahead;
        SystemRunOptions ro = o;
        const auto t1 = std::chrono::steady_clock::now();
        const double c1 = bench::process_cpu_seconds();
        auto s = ClientSession::connect(co);
        use_served_models(ro, s);
        const SystemRunResult rres = run_system(ro);
        s->bye();
        col.best = std::min(col.best, seconds_since(t1));
        col.cpu.push_back(bench::process_cpu_seconds() - c1);
        col.waits = s->round_trips();
        col.posted = s->posted();
        col.identical = col.identical && results_json(ro, rres).dump() == want;
      }
    }
    // Each server ends its sessions in run order: repeat-major, lock-step before lookahead.
    const std::size_t modes = cols.size() / servers.size();
    for (std::size_t l = 0; l < servers.size(); ++l) {
      int status = 0;
      waitpid(servers[l], &status, 0);
      const std::vector<double> server_cpu = read_numbers(cpu_fds[l]);
      for (std::size_t i = 0; i < server_cpu.size() && i / modes < static_cast<std::size_t>(repeat); ++i)
        cols[modes * l + i % modes].cpu[i / modes] += server_cpu[i];
    }
    for (const Column& col : cols) {
      all_identical = all_identical && col.identical;
      const double cpu = *std::min_element(col.cpu.begin(), col.cpu.end());
      std::printf("%-30s %-4s %-9s %8.3f %9.3f %7llu %7llu %6.2f %6.2f %s\n", c.name, col.link.c_str(),
                  col.lookahead ? "lookahead" : "lock-step", local, col.best,
                  static_cast<unsigned long long>(col.waits), static_cast<unsigned long long>(col.posted),
                  local / col.best, local_cpu / cpu, col.identical ? "yes" : "NO");
    }
    std::fflush(stdout);
  }
  std::printf("gemm %ux%ux%u int8, best of %d; ratio = in-process wall time / two-process wall time; cpu = in-process\n"
              "CPU time / (client + server CPU time); waits = times the client blocked for the server; posted =\n"
              "requests sent without waiting\n",
              m, k, n, repeat);

  // Split runs: every chip in its own client process, the fabric on the server (K-split
  // GEMM: partial sums cross the fabric). Interleaved as above.
  struct SplitCase {
    const char* name;
    const char* config;
    bool model_tiles;
    bool ideal;  // ideal 100 ns memories (lookahead mode) instead of the config's HBM2
    bool fabric_only;  // the server hosts only the fabric; each client simulates its chips' memories
  };
  const std::vector<SplitCase> split_cases = {
      {"2 chips x 2 RTL, HBM2 + ring", "chip2x2_rtl.yaml", false, false, false},
      {"2 chips x 2 RTL, ideal + ring", "chip2x2_rtl.yaml", false, true, false},
      {"2 chips x 2 model, HBM2 + ring", "chip2x2_rtl.yaml", true, false, false},
      {"2 chips x 2 model, ideal + ring", "chip2x2_rtl.yaml", true, true, false},
      {"2 chips x 2 RTL, HBM2 + ring", "chip2x2_rtl.yaml", false, false, true},
      {"2 chips x 2 RTL, ideal + ring", "chip2x2_rtl.yaml", false, true, true},
      {"2 chips x 2 model, HBM2 + ring", "chip2x2_rtl.yaml", true, false, true},
      {"2 chips x 2 model, ideal + ring", "chip2x2_rtl.yaml", true, true, true},
  };
  std::printf("\nsplit runs: one client process per chip and a server, gemm %ux%ux%u split k\n", m, k, n);
  std::printf("%-30s %-8s %-4s %8s %9s %7s %6s %6s %s\n", "system", "serves", "link", "local s", "split s", "waits",
              "ratio", "cpu", "identical");
  for (const SplitCase& c : split_cases) {
    const ServedParts serve{!c.fabric_only, true};
    const std::string row = std::string(c.name) + " " + to_string(serve);
    if (row.find(only) == std::string::npos) continue;
    SystemRunOptions o;
    o.system = load_system_config(configs + c.config);
    o.system.rows = o.system.cols = 4;
    o.system.compare_model = false;
    if (c.model_tiles) o.system.tile_kinds.assign(o.system.tiles_per_chip, TileKind::kModel);
    if (c.ideal) {
      o.system.memory = "ideal";
      o.system.ideal_latency_ps = 100'000;
    }
    o.workload.shape = {m, k, n, DType::kInt8};
    o.workload.split = "k";
    // Interleaved: in one process, then split over each link, `repeat` times.
    const std::vector<std::pair<std::string, std::string>> links = {
        {"unix", "unix:/tmp/mxcosim-bench-split-" + std::to_string(getpid()) + ".sock"}, {"tcp", "tcp://127.0.0.1:0"}};
    double local = 1e30, local_cpu = 1e30;
    std::vector<double> split(links.size(), 1e30), split_cpu(links.size(), 1e30);
    std::vector<unsigned long long> waits(links.size(), 0);
    bool identical = true;
    for (int r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const double c0 = bench::process_cpu_seconds();
      const std::string want = results_json(o, run_system(o)).dump();
      local = std::min(local, seconds_since(t0));
      local_cpu = std::min(local_cpu, bench::process_cpu_seconds() - c0);
      for (std::size_t l = 0; l < links.size(); ++l) {
        double cpu = 0;
        split[l] = std::min(split[l], split_run(o, serve, links[l].second, want, cpu, waits[l], identical));
        split_cpu[l] = std::min(split_cpu[l], cpu);
      }
    }
    all_identical = all_identical && identical;
    for (std::size_t l = 0; l < links.size(); ++l)
      std::printf("%-30s %-8s %-4s %8.3f %9.3f %7llu %6.2f %6.2f %s\n", c.name, to_string(serve).c_str(),
                  links[l].first.c_str(), local, split[l], waits[l], local / split[l], local_cpu / split_cpu[l],
                  identical ? "yes" : "NO");
    std::fflush(stdout);
  }
  std::printf("ratio = in-process wall time / split wall time (first fork to last exit); cpu = in-process CPU time /\n"
              "(all clients' + server CPU time); waits = the most times one client waited for the server; serves =\n"
              "what the server hosts (all: memories and fabric; fabric: each client simulates its chips' memories)\n");
  return all_identical ? 0 : 1;
}
