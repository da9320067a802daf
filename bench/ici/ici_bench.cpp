// ICI benchmark, run on demand: speed of the packet model in flit-hops and
// wire-packet hops per second of wall time on one core (flit-hops also per
// CPU second), and the wall time of a 1 GiB all-reduce on a 4x4x4 torus.
// Targets: >= 5 M flit-hops/s; the all-reduce in under 60 s. A flit is the
// config's flit_bytes (64 B here), so a 64 B packet is 2 flits with its 64 B
// header.
//
// CPU seconds are printed next to wall seconds: on a shared machine the wall
// time also counts waiting for a core. `bench_ici traffic` or `bench_ici
// allreduce` runs one half.
#include <chrono>
#include <cstdio>
#include <cstring>

#include "bench/cpu_time.h"
#include "models/ici/collective.h"
#include "models/ici/collective_runner.h"
#include "models/ici/schedule_bound.h"
#include "models/ici/torus_fabric.h"
#include "models/ici/traffic_run.h"

using namespace mxc;
using namespace mxc::ici;

namespace {

IciConfig cube() {
  IciConfig c;  // the torus4x4x4.yaml preset
  c.dims = {4, 4, 4};
  c.wrap = {true};
  return c;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void traffic_speed(std::uint32_t packet_bytes, double load) {
  TorusFabric f(cube());
  const TrafficPattern pat(TrafficKind::kUniform, f.topology());
  TrafficParams prm;
  prm.load = load;
  prm.packet_bytes = packet_bytes;
  prm.warmup_ps = 10'000'000;
  prm.measure_ps = 100'000'000;
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = bench::process_cpu_seconds();
  const TrafficPoint p = run_traffic(f, f.topology(), pat, 45e9, prm);
  const double s = seconds_since(t0), cpu = bench::process_cpu_seconds() - c0;
  std::printf("uniform 4x4x4, %5u B packets, load %.2f: %.2f s wall (%.2f s CPU), %.2f M flit-hops/s "
              "(%.2f M per CPU second), %.2f M packet-hops/s (accepted %.3f, latency %.0f ns, %llu packet-hops)\n",
              packet_bytes, load, s, cpu, f.s_flit_hops / s / 1e6, f.s_flit_hops / cpu / 1e6,
              f.s_packet_hops / s / 1e6, p.accepted_load, p.avg_latency_ns,
              static_cast<unsigned long long>(f.s_packet_hops));
}

void allreduce(Algorithm a, std::uint64_t bytes) {
  const IciConfig cfg = cube();
  TorusFabric f(cfg);
  const Schedule s = build_schedule(Collective::kAllReduce, a, f.topology(), bytes);
  CollectiveRunner r(f, f.topology());
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = bench::process_cpu_seconds();
  const CollectiveRun run = r.run(s);
  const double wall = seconds_since(t0), cpu = bench::process_cpu_seconds() - c0;
  const BoundTerms b = schedule_bound(s, f.topology(), cfg);
  std::printf("all-reduce %-9s %6.0f MiB on 4x4x4: simulated %.3f ms, bound %.3f ms (ratio %.4f), "
              "%.2f s wall (%.2f s CPU), %.2f M flit-hops/s (%.2f M per CPU second), %.2f M packet-hops/s\n",
              to_string(a).c_str(), bytes / 1048576.0, run.time_ps() / 1e9, b.total_ps / 1e9,
              static_cast<double>(run.time_ps()) / static_cast<double>(b.total_ps), wall, cpu,
              f.s_flit_hops / wall / 1e6, f.s_flit_hops / cpu / 1e6, f.s_packet_hops / wall / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  const bool all = argc < 2;
  if (all || std::strcmp(argv[1], "traffic") == 0) {
    traffic_speed(64, 0.1);  // 2-flit packets (64 B payload + 64 B header), below saturation
    traffic_speed(1024, 0.2);
    traffic_speed(4096, 0.2);
  }
  if (all || std::strcmp(argv[1], "allreduce") == 0) {
    allreduce(Algorithm::kAllAxes, 1ull << 30);
    allreduce(Algorithm::kDimOrder, 1ull << 30);
    allreduce(Algorithm::kRing, 256ull << 20);
  }
  return 0;
}
