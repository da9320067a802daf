// One system split over several clients (one per chip) on one server: the
// server runs the fabric for all, and every client's results JSON equals the
// in-process run's, byte for byte. A client that dies mid-run fails the others
// with a clear error, never a hang.
#include <atomic>
#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "bridge/transport/chip_port.h"
#include "bridge/transport/client_session.h"
#include "cosim/results_json.h"
#include "cosim/served_system.h"
#include "cosim/system_config.h"
#include "cosim/system_run.h"
#include "models/mxu/assembler.h"
#include "child_process.h"
#include "ring_exchange.h"
#include "server_fixture.h"

using namespace mxc;
using namespace mxc::transport;
using mxc::transport::testing::collect;
using mxc::transport::testing::fork_child;
using mxc::transport::testing::ring_exchange;
using mxc::transport::testing::ServerThread;

namespace {

const std::string kConfigs = std::string(MXCOSIM_SOURCE_DIR) + "/configs";

ClientOptions split_client(const std::string& address, const SystemRunOptions& o, std::vector<std::uint32_t> chips) {
  ClientOptions co;
  co.address = address;
  co.system = served_system(o.system);
  co.seed = o.seed;
  co.chips = std::move(chips);
  co.split = true;
  co.split_terms = split_run_terms(o);
  co.reply_timeout = Millis(20'000);
  return co;
}

// Runs `o` with the chips of groups[i] in client thread i (default: one chip per client), all
// on one server; returns every client's results JSON.
std::vector<std::string> split_jsons(const SystemRunOptions& o, const Workload* w, const std::string& tag,
                                     std::vector<std::vector<std::uint32_t>> groups = {}, ServedParts serve = {}) {
  ServerOptions so;
  so.system = served_system(o.system);
  so.seed = o.seed;
  so.serve = serve;
  ServerThread st(so, tag);
  if (groups.empty())
    for (std::uint32_t c = 0; c < o.system.chips; ++c) groups.push_back({c});
  const auto n = static_cast<std::uint32_t>(groups.size());
  std::vector<std::string> jsons(n), errors(n);
  std::vector<std::thread> clients;
  for (std::uint32_t c = 0; c < n; ++c)
    clients.emplace_back([&, c] {
      try {
        auto s = ClientSession::connect(split_client(st.address, o, groups[c]));
        SystemRunOptions mine = o;
        use_served_models(mine, s);
        if (mine.chips != groups[c] || bool(mine.make_memory) != serve.memories || !mine.make_port)
          throw std::logic_error("the client did not take what the server serves");
        const SystemRunResult r = w ? run_system(mine, *w) : run_system(mine);
        jsons[c] = results_json(o, r).dump();
        s->bye();
      } catch (const std::exception& e) {
        errors[c] = e.what();
      }
    });
  for (auto& t : clients) t.join();
  st.join();
  for (std::uint32_t c = 0; c < n; ++c) {
    INFO("client " << c);
    CHECK(errors[c] == "");
  }
  const auto out = st.server.outcomes();
  CHECK(out.size() == n);
  for (const auto& s : out) {
    INFO(s.error);
    CHECK(s.ok);
  }
  return jsons;
}

void check_split_equals_local(const SystemRunOptions& o, const Workload* w, const std::string& tag,
                              std::vector<std::vector<std::uint32_t>> groups = {}, ServedParts serve = {}) {
  const SystemRunResult local = w ? run_system(o, *w) : run_system(o);
  REQUIRE(local.passed);
  const std::string want = results_json(o, local).dump();
  for (const std::string& got : split_jsons(o, w, tag, std::move(groups), serve)) CHECK(got == want);
}

const ServedParts kFabricOnly{false, true};

// Nine chips on a 3x3 mesh whose injection queues hold one message. Chip 3 keeps its queue
// full with rows for chip 7; chip 1 sends one row to chip 7 after a load of `load_rows` rows;
// chips 0 and 7 wait for rows, so their tiles step while nothing moves. At some loads chip 1's
// row is offered at a time when chip 3's refused row could also go, after steps of tiles that
// send nothing (which the server never sees): both must be taken in the server's order.
Workload mesh_contention(const SystemConfig& cfg, std::uint32_t load_rows) {
  Workload w;
  w.description = "mesh contention";
  const std::string cols = std::to_string(cfg.cols);
  const auto prog = [](const std::string& text) {
    std::istringstream in(text);
    return parse_program(in, "mesh_contention.s");
  };
  for (std::uint32_t c = 0; c < cfg.chips; ++c) {
    SparseMemory image;
    for (std::uint32_t r = 0; r < 4; ++r) image.write(0x1000 + 64 * r, std::vector<std::uint8_t>(cfg.cols, 16 * c + r));
    w.images.push_back(std::move(image));
    w.regions.emplace_back();
    std::string t0 = "fence\n", t1 = "fence\n";
    std::ostringstream s;
    if (c == 0) t1 = "ici_wait rows=1\ndma_store rows=1 cols=" + cols + " sp_row=700 hbm_addr=0x40000 hbm_stride=64 wait_ici=0\nfence\n";
    if (c == 3) {
      s << "dma_load rows=4 cols=" << cols << " sp_row=0 hbm_addr=0x1000 hbm_stride=64\nfence\n";
      for (std::uint32_t r = 0; r < 100; ++r)
        s << "ici_send rows=1 cols=" << cols << " sp_row=" << r % 4 << " dst_chip=7 remote_row=" << 100 + r << " wait_dma=0\n";
      t1 = s.str() + "fence\n";
    }
    if (c == 1) {
      s << "dma_load rows=4 cols=" << cols << " sp_row=0 hbm_addr=0x1000 hbm_stride=64\nfence\n"
        << "dma_load rows=" << load_rows << " cols=" << cols << " sp_row=300 hbm_addr=0x1000 hbm_stride=64\nfence\n"
        << "ici_send rows=1 cols=" << cols << " sp_row=0 dst_chip=7 remote_row=1000 wait_dma=0\nfence\n";
      t0 = s.str();
    }
    if (c == 7) {
      t0 = "ici_wait rows=1\ndma_store rows=1 cols=" + cols + " sp_row=1000 hbm_addr=0x50000 hbm_stride=64 wait_ici=0\nfence\n";
      t1 = "ici_wait rows=100\ndma_store rows=20 cols=" + cols +
           " sp_row=100 hbm_addr=0x40000 hbm_stride=64 wait_ici=0\n"
           "ici_send rows=1 cols=" + cols + " sp_row=100 dst_chip=0 remote_row=700 wait_dma=0\nfence\n";
    }
    w.programs.push_back({prog(t0), prog(t1)});
  }
  return w;
}

}  // namespace

TEST_CASE("split run: packets the fabric refused are taken in the server's order after steps it never sees") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_model.yaml");
  o.system.chips = 9;
  o.system.ici_config = kConfigs + "/ici/mesh3x3_q1.yaml";
  o.seed = 5;
  for (std::uint32_t load_rows : {455u, 456u, 457u, 458u}) {
    INFO("load rows " << load_rows);
    const Workload w = mesh_contention(o.system, load_rows);
    check_split_equals_local(o, &w, "mesh-" + std::to_string(load_rows));
  }
}

TEST_CASE("split run: two clients, one chip each, give the in-process results byte for byte") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_model.yaml");
  o.system.compare_model = true;
  o.workload.shape = {8, 8, 8, DType::kInt8};
  o.seed = 5;

  SECTION("a GEMM per chip (no ICI traffic)") { check_split_equals_local(o, nullptr, "split-gemm"); }
  SECTION("rows exchanged over the ring fabric") {
    const Workload w = ring_exchange(o.system, 4);
    const SystemRunResult local = run_system(o, w);
    REQUIRE(local.ici_bytes == 2 * 2 * 4 * o.system.cols);
    check_split_equals_local(o, &w, "split-ring");
  }
  SECTION("a fabric that refuses (injection queue of one): refused packets offered again in order") {
    o.system.ici_config = kConfigs + "/ici/ring4_q1.yaml";
    const Workload w = ring_exchange(o.system, 4);
    const SystemRunResult local = run_system(o, w);
    REQUIRE(local.ici_bytes == 2 * 2 * 4 * o.system.cols);
    check_split_equals_local(o, &w, "split-refuse");
  }
  SECTION("a GEMM split over the chips (reduce-scatter over the fabric)") {
    o.workload.split = "k";
    o.workload.shape = {8, 16, 8, DType::kInt8};
    const SystemRunResult local = run_system(o);
    REQUIRE(local.ici_bytes > 0);
    check_split_equals_local(o, nullptr, "split-k");
  }
  SECTION("HBM2 memories (lock-step) under the split") {
    o.system.memory = "hbm";
    o.system.hbm_config = kConfigs + "/hbm/hbm2.yaml";
    const Workload w = ring_exchange(o.system, 2);
    check_split_equals_local(o, &w, "split-hbm");
  }
}

TEST_CASE("split run: a server of the fabric only, each client simulating its chips' memories, is exact") {
  // Only the fabric crosses processes: windows of the ICI link latency, nothing per memory request.
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_model.yaml");
  o.system.compare_model = true;
  o.workload.shape = {8, 8, 8, DType::kInt8};
  o.seed = 6;
  for (const char* memory : {"ideal", "hbm"}) {
    INFO(memory);
    o.system.memory = memory;
    o.system.hbm_config = kConfigs + "/hbm/hbm2.yaml";
    o.workload.split = "none";
    check_split_equals_local(o, nullptr, std::string("fab-gemm-") + memory, {}, kFabricOnly);
    const Workload w = ring_exchange(o.system, 3);
    check_split_equals_local(o, &w, std::string("fab-ring-") + memory, {}, kFabricOnly);
    o.workload.split = "k";
    check_split_equals_local(o, nullptr, std::string("fab-k-") + memory, {}, kFabricOnly);
  }
  // Four chips, two per client.
  o.system = load_system_config(kConfigs + "/chip4x1_model.yaml");
  o.system.memory = "hbm";
  o.system.hbm_config = kConfigs + "/hbm/hbm2.yaml";
  const Workload w4 = ring_exchange(o.system, 2);
  check_split_equals_local(o, &w4, "fab-4", {{0, 2}, {1, 3}}, kFabricOnly);
}

TEST_CASE("split run: a server of the memories only refuses split clients with the reason") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_model.yaml");
  ServerOptions so;
  so.system = served_system(o.system);
  so.serve = ServedParts{true, false};
  ServerThread st(so, "split-mem-only");
  CHECK_THROWS_WITH(ClientSession::connect(split_client(st.address, o, {0})),
                    Catch::Contains("a split run needs the server's fabric") &&
                        Catch::Contains("serves only the memories"));
}

TEST_CASE("split run: four chips over two clients (two chips each) or four give the in-process results") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip4x1_model.yaml");
  o.system.compare_model = true;
  o.seed = 9;
  const Workload w = ring_exchange(o.system, 3);
  // Chips 0 and 1 in one client: their rows to each other still cross the server's fabric.
  check_split_equals_local(o, &w, "split4-pairs", {{0, 1}, {2, 3}});
  check_split_equals_local(o, &w, "split4-odd", {{1, 3}, {0, 2}});
  check_split_equals_local(o, &w, "split4-each", {});
  o.workload.shape = {8, 8, 16, DType::kInt8};
  o.workload.split = "n";
  check_split_equals_local(o, nullptr, "split4-gemm-n", {{0, 2}, {1}, {3}});
}

// Runs `o` split over forked processes: a server and one client per group (default: one chip
// each), as `mxcosim run --chips` runs them (the verilated RTL shares one context per process).
// `body` runs in each client with its options; returns what each returned, then the server's
// session outcomes ("ok;" or "failed: ...;" each). Fork only while no other thread runs.
std::vector<std::string> split_processes(const SystemRunOptions& o, const std::string& tag, ServedParts serve,
                                         std::vector<std::vector<std::uint32_t>> groups,
                                         const std::function<std::string(SystemRunOptions&)>& body) {
  if (groups.empty())
    for (std::uint32_t c = 0; c < o.system.chips; ++c) groups.push_back({c});
  const std::string address = "unix:" + mxc::transport::testing::socket_path(tag);
  int ready[2];
  if (pipe(ready) != 0) throw std::runtime_error("pipe failed");
  const auto server = fork_child([&] {
    ServerOptions so;
    so.system = served_system(o.system);
    so.seed = o.seed;
    so.serve = serve;
    so.max_sessions = groups.size();
    Server srv(so);
    srv.listen(address);
    close(ready[0]);
    if (write(ready[1], "1", 1) != 1) return std::string("error: ready pipe");
    close(ready[1]);
    srv.serve();
    std::string out;
    for (const auto& s : srv.outcomes()) out += s.ok ? "ok;" : "failed: " + s.error + ";";
    return out;
  });
  close(ready[1]);
  char byte = 0;
  const bool listening = read(ready[0], &byte, 1) == 1;
  close(ready[0]);
  std::vector<mxc::transport::testing::Child> clients;
  for (std::size_t g = 0; listening && g < groups.size(); ++g)
    clients.push_back(fork_child([&, g] {
      auto s = ClientSession::connect(split_client(address, o, groups[g]));
      SystemRunOptions mine = o;
      use_served_models(mine, s);
      std::string out = body(mine);
      s->bye();
      return out;
    }));
  std::vector<std::string> out;
  for (auto& c : clients) out.push_back(collect(c));
  out.push_back(collect(server));
  return out;
}

TEST_CASE("split run: two client processes running RTL chips give the in-process results byte for byte") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_rtl.yaml");
  o.workload.shape = {8, 8, 8, DType::kInt8};
  const Workload w = ring_exchange(o.system, 4);
  for (const auto& [ring, serve] : {std::pair<bool, ServedParts>{false, {}}, {true, {}}, {true, kFabricOnly}}) {
    INFO((ring ? "ring exchange" : "GEMM per chip") << ", serving " << to_string(serve));
    const SystemRunResult local = ring ? run_system(o, w) : run_system(o);
    REQUIRE(local.passed);
    const std::string want = results_json(o, local).dump();
    const auto got = split_processes(o, std::string(ring ? "split-rtl-ring-" : "split-rtl-") + to_string(serve), serve,
                                     {}, [&](SystemRunOptions& mine) {
                                       return results_json(o, ring ? run_system(mine, w) : run_system(mine)).dump();
                                     });
    REQUIRE(got.size() == 3);
    CHECK(got[0] == want);
    CHECK(got[1] == want);
    CHECK(got[2] == "ok;ok;");
  }
}

// The ring exchange with an instruction of unknown opcode first on tile 0 of each chip in `bad`.
Workload with_bad_instruction(const SystemConfig& cfg, const std::vector<std::uint32_t>& bad) {
  Workload w = ring_exchange(cfg, 2);
  for (std::uint32_t c : bad) {
    Instr unknown;
    unknown.op = static_cast<Opcode>(15);  // no such opcode: the RTL raises its error output
    w.programs[c][0].insert(w.programs[c][0].begin(), unknown);
  }
  return w;
}

TEST_CASE("split run: a tile raising its error output fails the split run exactly as it fails one process") {
  // Each client checks only its own chips' tiles; the run's error is the first chip's, in chip
  // order, and no client compares timing or data after it, as in one process.
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip4x1_model.yaml");
  o.system.tile_kinds.assign(o.system.tiles_per_chip, TileKind::kRtl);
  o.system.compare_model = true;
  for (const auto& [bad, groups] :
       {std::pair<std::vector<std::uint32_t>, std::vector<std::vector<std::uint32_t>>>{{3}, {{0, 1}, {2, 3}}},
        {{1, 2}, {{0, 2}, {1, 3}}}}) {
    const Workload w = with_bad_instruction(o.system, bad);
    const SystemRunResult local = run_system(o, w);
    INFO(local.error);
    REQUIRE_FALSE(local.passed);
    // The first bad chip's tile, whichever client runs it (chip 2's client sorts first for {0,2} {1,3}).
    REQUIRE(local.error == "dut.chip" + std::to_string(bad[0]) + ".tile0 raised its error output");
    REQUIRE_FALSE(local.timing.compared);
    const std::string want = results_json(o, local).dump();
    const auto got = split_processes(o, "split-hwerr-" + std::to_string(bad[0]), kFabricOnly, groups,
                                     [&](SystemRunOptions& mine) { return results_json(o, run_system(mine, w)).dump(); });
    REQUIRE(got.size() == 3);
    CHECK(got[0] == want);
    CHECK(got[1] == want);
    CHECK(got[2] == "ok;ok;");
  }
}

// A trace file's events by process id, in file order.
std::map<int, std::vector<nlohmann::json>> trace_by_pid(const std::string& path) {
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::map<int, std::vector<nlohmann::json>> out;
  for (const auto& e : doc.at("traceEvents")) out[e.at("pid").get<int>()].push_back(e);
  return out;
}

TEST_CASE("split run: each client writes the timeline of its own chips, as the in-process run draws them") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_model.yaml");
  o.system.memory = "hbm";
  o.system.hbm_config = kConfigs + "/hbm/hbm2.yaml";
  o.system.compare_model = true;
  o.workload.shape = {8, 16, 8, DType::kInt8};
  o.workload.split = "k";  // partial sums over the fabric
  const std::string dir = mxc::transport::testing::socket_path("trace");
  o.trace = dir + "-local.json";
  REQUIRE(run_system(o).passed);
  const auto local = trace_by_pid(o.trace);
  const auto got = split_processes(o, "split-trace", kFabricOnly, {}, [&](SystemRunOptions& mine) {
    mine.trace = dir + "-chip" + std::to_string(mine.chips.at(0)) + ".json";
    return std::string(run_system(mine).passed ? "pass" : "fail");
  });
  CHECK(got == std::vector<std::string>{"pass", "pass", "ok;ok;"});
  // Process ids as in one process: DUT tiles chip by chip, the shadow's, each chip's HBM, the ICI.
  const int chips = 2, tiles = 2, ici = 2 * chips * tiles + chips + 1;
  REQUIRE(local.count(ici));
  std::multiset<std::string> packets_local, packets_split;
  for (const auto& e : local.at(ici))
    if (e.at("ph") == "X") packets_local.insert(e.dump());
  REQUIRE_FALSE(packets_local.empty());
  for (int c = 0; c < chips; ++c) {
    const auto mine = trace_by_pid(dir + "-chip" + std::to_string(c) + ".json");
    for (const auto& [pid, events] : local) {
      if (pid == ici) continue;
      const bool dut_tile = pid <= chips * tiles, hbm = pid > 2 * chips * tiles && pid < ici;
      const int chip = dut_tile ? (pid - 1) / tiles : hbm ? pid - 2 * chips * tiles - 1 : -1;
      INFO("chip " << c << " pid " << pid);
      if (chip >= 0 && chip != c) {
        CHECK(mine.count(pid) == 0);  // another client's chip
      } else {
        REQUIRE(mine.count(pid) == 1);
        CHECK(mine.at(pid) == events);  // its own chip's tiles and HBM, and the whole shadow
      }
    }
    // The packets delivered to its chips (each route's track numbered among its own routes).
    REQUIRE(mine.count(ici));
    for (const auto& e : mine.at(ici)) {
      if (e.at("ph") != "X") continue;
      CHECK(e.at("args").at("id").get<std::uint64_t>() < packets_local.size());  // the global packet ids
      packets_split.insert(e.dump());
    }
  }
  // A route's track (tid: route index and lane) is numbered among the routes the file holds;
  // the packets themselves are the in-process ones.
  const auto strip_tid = [](const std::multiset<std::string>& in) {
    std::multiset<std::string> out;
    for (const auto& text : in) {
      auto e = nlohmann::json::parse(text);
      e.erase("tid");
      out.insert(e.dump());
    }
    return out;
  };
  CHECK(strip_tid(packets_split) == strip_tid(packets_local));
  for (const std::string& f : {std::string("-local"), std::string("-chip0"), std::string("-chip1")})
    std::remove((dir + f + ".json").c_str());
}

TEST_CASE("split run: a client that dies mid-run fails the other with a clear error") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_model.yaml");
  o.workload.shape = {8, 8, 8, DType::kInt8};
  const Workload w = ring_exchange(o.system, 4);
  ServerOptions so;
  so.system = served_system(o.system);
  so.seed = o.seed;
  ServerThread st(so, "split-die");
  // Chip 1's client joins, then dies (its connection closes) without a word.
  std::thread dead([&] {
    auto ch = Channel::connect(parse_address(st.address), Millis(5000));
    Hello h;
    h.config_hash = config_hash(so.system);
    h.seed = o.seed;
    h.chips = {1};
    h.flags = kHelloSplit;
    h.split_terms = split_run_terms(o);
    ch->send(h, Millis(5000));
    (void)ch->receive(Millis(5000));
    ch->send(WindowMsg{0, kNever, false, 0, 0}, Millis(5000));
    ch->close();
  });
  std::string error;
  try {
    auto s = ClientSession::connect(split_client(st.address, o, {0}));
    SystemRunOptions mine = o;
    use_served_models(mine, s);
    run_system(mine, w);
  } catch (const TransportError& e) {
    error = e.what();
  }
  dead.join();
  st.join();
  CHECK_THAT(error, Catch::Contains("transport: ") && Catch::Contains("client for chip(s) 1 left the split run"));
}

TEST_CASE("split run: a chip that hangs stops the split run, and every client gives the in-process results") {
  // A watchdog far shorter than an ICI round trip: the tiles waiting for their rows "hang",
  // in one process as in every client. Each client's watchdog sees only its own steps, so the
  // clients stop, and then run the whole system in their own process.
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_model.yaml");
  o.system.watchdog_cycles = 50;
  o.system.ideal_latency_ps = 20'000;  // a memory round trip must fit in the watchdog's cycles
  o.system.compare_model = true;
  const Workload w = ring_exchange(o.system, 1);
  const SystemRunResult local = run_system(o, w);
  REQUIRE_THAT(local.error, Catch::Contains("no progress for 50 cycles"));
  const std::string want = results_json(o, local).dump();
  for (const ServedParts serve : {ServedParts{}, kFabricOnly}) {
    INFO("serving " << to_string(serve));
    ServerOptions so;
    so.system = served_system(o.system);
    so.seed = o.seed;
    so.serve = serve;
    ServerThread st(so, "split-hang-" + to_string(serve));
    std::vector<std::string> errors(2), stopped(2), jsons(2);
    std::vector<std::thread> clients;
    for (std::uint32_t c = 0; c < 2; ++c)
      clients.emplace_back([&, c] {
        try {
          auto s = ClientSession::connect(split_client(st.address, o, {c}));
          SystemRunOptions mine = o;
          use_served_models(mine, s);
          const SystemRunResult r = run_system(mine, w);
          stopped[c] = r.split_stopped;
          jsons[c] = results_json(o, r).dump();
        } catch (const std::exception& e) {
          errors[c] = e.what();
        }
      });
    for (auto& t : clients) t.join();
    st.join();
    for (std::uint32_t c = 0; c < 2; ++c) {
      INFO("client " << c << ": " << errors[c]);
      CHECK(errors[c].empty());
      // Its own hang or the other's, whichever came first.
      CHECK_THAT(stopped[c], Catch::Contains("stopped before the end of the split run: no progress for 50 cycles"));
      CHECK(jsons[c] == want);
    }
  }
}

TEST_CASE("split run: a client stopped by a signal keeps its chips' results and stops the other with its reason") {
  // Client 1's stop flag (a signal's, in `mxcosim run`) is set from the start: it stops at its
  // first look, keeping the results of its own chip, and the other client stops too, with the
  // reason, rather than run the whole system again as after a hang.
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_model.yaml");
  o.system.compare_model = true;
  const Workload w = ring_exchange(o.system, 64);
  REQUIRE(run_system(o, w).passed);
  ServerOptions so;
  so.system = served_system(o.system);
  so.seed = o.seed;
  ServerThread st(so, "split-signal");
  std::atomic<bool> signalled{true};
  std::vector<std::string> errors(2);
  std::vector<SystemRunResult> results(2);
  std::vector<std::thread> clients;
  for (std::uint32_t c = 0; c < 2; ++c)
    clients.emplace_back([&, c] {
      try {
        auto s = ClientSession::connect(split_client(st.address, o, {c}));
        SystemRunOptions mine = o;
        use_served_models(mine, s);
        if (c == 1) mine.stop = &signalled;
        results[c] = run_system(mine, w);
      } catch (const std::exception& e) {
        errors[c] = e.what();
      }
    });
  for (auto& t : clients) t.join();
  st.join();
  INFO("client 1: " << errors[1]);
  REQUIRE(errors[1].empty());
  const SystemRunResult& r = results[1];
  CHECK(r.interrupted);
  CHECK_FALSE(r.passed);
  CHECK(r.split_stopped.empty());  // not re-run whole
  const std::string head = "stopped by a signal at " + std::to_string(r.sim_time_ps) + " ps, before the run finished: ";
  CHECK(r.error.rfind(head, 0) == 0);
  REQUIRE(r.tiles.size() == o.system.tiles_per_chip);  // its own chip's tiles
  CHECK(r.tiles[0].name == "dut.chip1.tile0");
  CHECK_THAT(errors[0], Catch::StartsWith("the split run stopped at ") &&
                            Catch::Contains("chip(s) 1 stopped before the end of the split run: " + head));
}

TEST_CASE("split run: packets are numbered in the global (time, component) order, not in arrival order") {
  // Two raw clients post one packet each at time 0. In one process the kernel steps tile 1 of
  // chip 0 (component 1) before tile 0 of chip 1 (component 2), so the pump numbers chip 0's
  // packet 0 and chip 1's packet 1. Chip 1's client sends first: arrival order must not matter.
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_model.yaml");
  ServerOptions so;
  so.system = served_system(o.system);
  ServerThread st(so, "split-order");
  std::vector<std::unique_ptr<Channel>> ch(2);
  for (std::uint32_t c : {1u, 0u}) {
    ch[c] = Channel::connect(parse_address(st.address), Millis(5000));
    Hello h;
    h.config_hash = config_hash(so.system);
    h.seed = so.seed;
    h.chips = {c};
    h.flags = kHelloSplit;
    ch[c]->send(h, Millis(5000));
    REQUIRE(std::holds_alternative<Hello>(ch[c]->receive(Millis(5000))));
  }
  for (std::uint32_t c : {1u, 0u}) {
    PacketMsg p;
    p.pkt.id = c == 0 ? 1 : 2;  // the sending tile's global component id
    p.pkt.src = c;
    p.pkt.dst = 1 - c;
    p.pkt.bytes = 4;
    p.pkt.payload = {1, 2, 3, 4};
    ch[c]->send(p, Millis(5000));
    ch[c]->send(WindowMsg{0, kNever, false, 0, 0}, Millis(5000));
  }
  for (std::uint32_t c : {0u, 1u}) {
    std::vector<IciPacket> got;
    for (;;) {
      Message m = ch[c]->receive(Millis(5000));
      if (auto* p = std::get_if<PacketMsg>(&m)) got.push_back(p->pkt);
      if (std::holds_alternative<WindowMsg>(m)) break;
    }
    REQUIRE(got.size() == 1);
    CHECK(got[0].src == 1 - c);
    CHECK(got[0].id == (c == 1 ? 0u : 1u));
    ch[c]->close();
  }
}

namespace {

// A raw client of a split run over the server (`so`) at `address`, for chip `chip`, past its handshake.
std::unique_ptr<Channel> raw_split_client(const std::string& address, const ServerOptions& so, std::uint32_t chip) {
  auto ch = Channel::connect(parse_address(address), Millis(5000));
  Hello h;
  h.config_hash = config_hash(so.system);
  h.seed = so.seed;
  h.chips = {chip};
  h.flags = kHelloSplit;
  ch->send(h, Millis(5000));
  REQUIRE(std::holds_alternative<Hello>(ch->receive(Millis(5000))));
  return ch;
}

// The next message that is neither a HEARTBEAT nor a delivery.
Message next_answer(Channel& ch) {
  for (;;) {
    Message m = ch.receive(Millis(10'000));
    if (!std::holds_alternative<HeartbeatMsg>(m) && !std::holds_alternative<PacketMsg>(m)) return m;
  }
}

// A server of the two-chip model system, for raw split clients.
ServerOptions two_model_chips() {
  ServerOptions so;
  so.system = served_system(load_system_config(kConfigs + "/chip2x2_model.yaml"));
  return so;
}

// Both raw clients say they are done, and the server answers that the run has ended.
void end_windows(Channel& a, Channel& b) {
  for (Channel* ch : {&a, &b}) ch->send(WindowMsg{0, kNever, true, 0, 0}, Millis(5000));
  for (Channel* ch : {&a, &b}) REQUIRE(std::get<WindowMsg>(next_answer(*ch)).done);
}

}  // namespace

TEST_CASE("split run: a packet stamped before the time its client's WINDOW covered is refused") {
  const ServerOptions so = two_model_chips();
  ServerThread st(so, "split-past-packet");
  auto a = raw_split_client(st.address, so, 0);
  auto b = raw_split_client(st.address, so, 1);
  // Both done up to 0 ps, their next events 1 us away: the fabric may run to just before that.
  for (Channel* ch : {a.get(), b.get()}) ch->send(WindowMsg{0, 1'000'000, false, 0, 0}, Millis(5000));
  for (Channel* ch : {a.get(), b.get()}) REQUIRE(std::holds_alternative<WindowMsg>(next_answer(*ch)));
  PacketMsg p;
  p.time = 0;
  p.pkt.id = 0;  // tile 0 of chip 0
  p.pkt.src = 0;
  p.pkt.dst = 1;
  p.pkt.bytes = 4;
  p.pkt.payload = {1, 2, 3, 4};
  a->send(p, Millis(5000));
  const Message m = next_answer(*a);
  REQUIRE(std::holds_alternative<ErrorMsg>(m));
  CHECK_THAT(std::get<ErrorMsg>(m).text, Catch::Contains("PACKET at 0 ps") &&
                                             Catch::Contains("WINDOW said every packet up to 999999 ps was posted"));
}

TEST_CASE("split run: a second REPORT after the reports were exchanged is refused, not left waiting") {
  const ServerOptions so = two_model_chips();
  ServerThread st(so, "split-report-twice");
  auto a = raw_split_client(st.address, so, 0);
  auto b = raw_split_client(st.address, so, 1);
  end_windows(*a, *b);
  for (Channel* ch : {a.get(), b.get()}) ch->send(ReportMsg{{"part"}}, Millis(5000));
  for (Channel* ch : {a.get(), b.get()}) REQUIRE(std::holds_alternative<ReportMsg>(next_answer(*ch)));
  a->send(ReportMsg{{"again"}}, Millis(5000));
  const Message m = next_answer(*a);
  REQUIRE(std::holds_alternative<ErrorMsg>(m));
  CHECK_THAT(std::get<ErrorMsg>(m).text, Catch::Contains("REPORT after the reports were exchanged"));
}

TEST_CASE("split run: reports larger together than a frame reach every client whole and in chip order") {
  // Two parts of 9 MiB: each fits a frame, the two together pass the 16 MiB limit (the answer
  // was one frame, and the server failed it).
  const ServerOptions so = two_model_chips();
  ServerThread st(so, "split-big-reports");
  auto a = raw_split_client(st.address, so, 0);
  auto b = raw_split_client(st.address, so, 1);
  end_windows(*a, *b);
  const std::string part_a(9u << 20, 'a'), part_b(9u << 20, 'b');
  a->send(ReportMsg{{part_a}}, Millis(5000));
  b->send(ReportMsg{{part_b}}, Millis(5000));
  for (Channel* ch : {a.get(), b.get()}) {
    std::vector<std::string> got;
    for (std::uint32_t total = 1; got.size() < total;) {
      const Message m = next_answer(*ch);
      REQUIRE(std::holds_alternative<ReportMsg>(m));
      const auto& r = std::get<ReportMsg>(m);
      total = r.total;
      got.insert(got.end(), r.parts.begin(), r.parts.end());
    }
    REQUIRE(got.size() == 2);
    CHECK(got[0] == part_a);
    CHECK(got[1] == part_b);
  }
}

TEST_CASE("split run: a REPORT frame holding more parts than its total says is refused with a reason") {
  const ServerOptions so = two_model_chips();
  ServerThread st(so, "split-bad-report");
  auto a = raw_split_client(st.address, so, 0);
  a->send(ReportMsg{{"a", "b"}, 1}, Millis(5000));
  const Message m = next_answer(*a);
  REQUIRE(std::holds_alternative<ErrorMsg>(m));
  CHECK_THAT(std::get<ErrorMsg>(m).text, Catch::Contains("2 parts of 1 in all"));
}

TEST_CASE("report_frames packs parts in order into frames within the limit") {
  const std::size_t third = kMaxFrameBytes / 3;
  std::vector<std::string> parts = {std::string(third, 'x'), std::string(third, 'y'), std::string(third, 'z'),
                                    "", std::string(kMaxFrameBytes - 16, 'w')};
  const std::vector<std::string> want = parts;
  const std::vector<ReportMsg> frames = report_frames(parts);
  // Three thirds and their lengths pass the limit by a few bytes: two, then the third and the empty
  // part, then the nearly whole frame alone.
  REQUIRE(frames.size() == 3);
  std::vector<std::string> got;
  for (const ReportMsg& f : frames) {
    CHECK(f.total == 5);
    CHECK(encode(f).size() <= kMaxFrameBytes + kLengthBytes);
    got.insert(got.end(), f.parts.begin(), f.parts.end());
  }
  CHECK(got == want);
}

TEST_CASE("split run: a copy of a busy fabric delivers what the fabric itself delivers, when it does") {
  // The server runs a copy ahead to find the next delivery; the copy must be the fabric's state.
  for (const char* ici : {"ring4.yaml", "torus4x4.yaml", "tpu4096_analytic.yaml"}) {
    INFO(ici);
    ServedSystem sys;
    sys.chips = 4;
    sys.ici_config = kConfigs + "/ici/" + ici;
    auto fabric = make_served_fabric(sys);
    using Log = std::vector<std::pair<Time, std::uint64_t>>;
    Log original;
    fabric->set_delivery([&](const IciPacket& p) { original.push_back({p.deliver, p.id}); });
    std::uint64_t id = 0;
    for (Time t = 0; t < 3'000'000; t += 250'000)
      for (std::uint32_t src = 0; src < 4; ++src) {
        IciPacket p;
        p.id = id++;
        p.src = src;
        p.dst = (src + 1 + static_cast<std::uint32_t>(t / 250'000) % 3) % 4;
        p.bytes = 64 * (1 + src);
        p.payload.assign(p.bytes, static_cast<std::uint8_t>(src));
        fabric->advance_to(t);
        REQUIRE(fabric->inject(p, t));
      }
    const std::size_t before = original.size();
    const auto copy = copy_fabric(*fabric);
    REQUIRE(copy);
    Log copied;
    copy->set_delivery([&](const IciPacket& p) { copied.push_back({p.deliver, p.id}); });
    for (Fabric* f : {fabric.get(), copy.get()})
      while (f->next_event_time() != kNever) f->advance_to(f->next_event_time());
    const Log after(original.begin() + static_cast<std::ptrdiff_t>(before), original.end());
    CHECK(after.size() > 4);  // still in flight when copied
    CHECK(copied == after);
    CHECK(original.size() == id);
  }
}

TEST_CASE("split run: refused handshakes") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_model.yaml");
  ServerOptions so;
  so.system = served_system(o.system);
  so.read_timeout = Millis(2000);
  ServerThread st(so, "split-refuse");
  auto first = ClientSession::connect(split_client(st.address, o, {0}));
  // Chip 0 is taken by the first client of the run that is forming.
  CHECK_THROWS_WITH(ClientSession::connect(split_client(st.address, o, {0})),
                    Catch::Contains("chip 0 is already run by another client"));
  CHECK_THROWS_WITH(ClientSession::connect(split_client(st.address, o, {7})), Catch::Contains("chip 7"));
  // Nobody runs chip 1: the first client's window fails after the join timeout.
  ChipPort port(first);
  CHECK_THROWS_WITH(port.advance_to(0), Catch::Contains("no client for chip(s) 1 joined"));
}

namespace {

// Clients running `o` split one chip each over the server at `address`, each on a thread with its
// session `sessions[c]` (connected by the caller when given); every client's results JSON.
std::vector<std::string> run_clients(const std::string& address, const SystemRunOptions& o,
                                     std::vector<std::shared_ptr<ClientSession>> sessions) {
  sessions.resize(o.system.chips);
  std::vector<std::string> out(o.system.chips);
  std::vector<std::thread> clients;
  for (std::uint32_t c = 0; c < o.system.chips; ++c)
    clients.emplace_back([&, c] {
      try {
        auto s = sessions[c] ? sessions[c] : ClientSession::connect(split_client(address, o, {c}));
        SystemRunOptions mine = o;
        use_served_models(mine, s);
        out[c] = results_json(o, run_system(mine)).dump();
        s->bye();
      } catch (const std::exception& e) {
        out[c] = std::string("error: ") + e.what();
      }
    });
  for (auto& t : clients) t.join();
  return out;
}

/// A small K-split GEMM on two model chips, for the tests of how clients join a run.
SystemRunOptions small_k_split() {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_model.yaml");
  o.workload.shape = {8, 16, 8, DType::kInt8};
  o.workload.split = "k";
  return o;
}

ServerOptions server_for(const SystemRunOptions& o) {
  ServerOptions so;
  so.system = served_system(o.system);
  so.seed = o.seed;
  return so;
}

}  // namespace

TEST_CASE("split run: a run that failed while its clients joined is dropped, and the next run starts afresh") {
  const SystemRunOptions o = small_k_split();
  const std::string want = results_json(o, run_system(o)).dump();
  ServerOptions so = server_for(o);
  so.read_timeout = Millis(2000);
  ServerThread st(so, "split-after-fail");
  {
    // Alone: nobody runs chip 1, so the run fails after the join timeout.
    auto alone = ClientSession::connect(split_client(st.address, o, {0}));
    ChipPort port(alone);
    REQUIRE_THROWS_WITH(port.advance_to(0), Catch::Contains("no client for chip(s) 1 joined"));
  }
  // The next pair runs: chip 0 is not still taken by the failed run.
  CHECK(run_clients(st.address, o, {}) == std::vector<std::string>{want, want});
}

TEST_CASE("split run: a run still forming when the server takes no more clients fails at once") {
  // A server of one session: its one client starts a split run no other client can join. It
  // waited out the join timeout (30 s by default) to learn it.
  const SystemRunOptions o = small_k_split();
  ServerOptions so = server_for(o);
  so.read_timeout = Millis(30'000);
  so.max_sessions = 1;
  ServerThread st(so, "split-no-more");
  auto alone = ClientSession::connect(split_client(st.address, o, {0}));
  ChipPort port(alone);
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(port.advance_to(0), Catch::Contains("the server takes no more clients"));
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(15));  // half the join timeout
}

TEST_CASE("split run: a client waiting for others that never join gives way to a stop within seconds") {
  // Its user asked it to stop (the flag a signal sets in `mxcosim run`) while no other client has
  // joined: the server's heartbeats keep the wait alive, so it waited out the join timeout (30 s)
  // and ended as a failed run. Now the wait gives way about Channel::kStopAfterMs after the stop.
  const SystemRunOptions o = small_k_split();
  ServerOptions so = server_for(o);
  so.read_timeout = Millis(30'000);
  ServerThread st(so, "split-stop-waiting");
  std::atomic<bool> stop{true};
  ClientOptions opts = split_client(st.address, o, {0});
  opts.stop = &stop;
  auto alone = ClientSession::connect(opts);
  ChipPort port(alone);
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(port.advance_to(0), Catch::Contains("stopped by a signal while waiting for"));
  const auto waited = std::chrono::steady_clock::now() - t0;
  CHECK(waited >= Millis(Channel::kStopAfterMs));  // a live peer's answer would have come first
  CHECK(waited < std::chrono::seconds(10));
  alone.reset();
}

TEST_CASE("split run: a client whose workload or tile options differ from the run's is refused, naming them") {
  const SystemRunOptions o = small_k_split();
  const std::string want = results_json(o, run_system(o)).dump();
  ServerOptions so = server_for(o);
  ServerThread st(so, "split-terms");
  auto first = ClientSession::connect(split_client(st.address, o, {0}));
  // Each differs in what the config hash and the seed do not cover; each is refused at the
  // handshake, and the run that is forming goes on.
  const std::vector<std::pair<std::function<void(SystemRunOptions&)>, std::string>> differ = {
      {[](SystemRunOptions& x) { x.workload.shape.m = 32; }, "m 32 here, 8 in the run"},
      {[](SystemRunOptions& x) { x.workload.split = "n"; }, "split n here, k in the run"},
      {[](SystemRunOptions& x) { x.workload.kind = "mlp"; }, "workload mlp here, gemm in the run"},
      {[](SystemRunOptions& x) { x.workload.shape.dtype = DType::kBf16; }, "dtype bf16 here, int8 in the run"},
      {[](SystemRunOptions& x) { x.system.rows = x.system.cols = 8; }, "rows 8 here, 4 in the run; cols 8 here"},
      {[](SystemRunOptions& x) { x.system.tile_kinds.assign(2, TileKind::kRtl); },
       "tile_kinds rtl,rtl here, model,model in the run"},
  };
  for (const auto& [change, what] : differ) {
    INFO(what);
    SystemRunOptions other = o;
    change(other);
    CHECK_THROWS_WITH(ClientSession::connect(split_client(st.address, other, {1})),
                      Catch::Contains("refused: split run: this client's run differs from the run the client "
                                      "for chip(s) 0 started (" + what) &&
                          Catch::Contains("every client of a split run must give the same workload"));
  }
  // A client that agrees completes the run, with the in-process results.
  CHECK(run_clients(st.address, o, {first}) == std::vector<std::string>{want, want});
}

TEST_CASE("split run: the terms clients must agree on cover the program file's contents") {
  SystemRunOptions o;
  o.workload.kind = "program";
  o.workload.program_files = {mxc::transport::testing::socket_path("terms") + ".s"};
  const auto terms_with = [&](const std::string& text) {
    std::ofstream(o.workload.program_files[0]) << text;
    return split_run_terms(o);
  };
  const std::string a = terms_with("fence\n"), b = terms_with("nop\nfence\n");
  CHECK(a != b);
  CHECK_THAT(a, Catch::Contains("\nprogram=contents ") && Catch::Contains("\nworkload=program\n"));
  std::remove(o.workload.program_files[0].c_str());
  CHECK_THAT(split_run_terms(o), Catch::Contains("\nprogram=unreadable\n"));
}

TEST_CASE("split run: the terms clients must agree on cover every chip's program file") {
  SystemRunOptions o;
  o.workload.kind = "program";
  const std::string first = mxc::transport::testing::socket_path("terms0") + ".s";
  const std::string second = mxc::transport::testing::socket_path("terms1") + ".s";
  o.workload.program_files = {first, second};
  std::ofstream(first) << "fence\n";
  const auto terms_with = [&](const std::string& text) {
    std::ofstream(second) << text;
    return split_run_terms(o);
  };
  const std::string a = terms_with("fence\n"), b = terms_with("nop\nfence\n");
  CHECK(a != b);  // the second file's contents count
  CHECK_THAT(a, Catch::Matches("(.|\n)*\nprogram=contents [0-9a-f]{16}, contents [0-9a-f]{16}\n(.|\n)*"));
  std::remove(first.c_str());
  std::remove(second.c_str());
}
