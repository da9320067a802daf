// Whole co-simulations with the memories and the fabric served over a Unix
// socket give the same results JSON, byte for byte, as the same run with
// local models; a server that dies mid-run fails the run with a clear error.
#include <catch2/catch.hpp>
#include <sstream>

#include "bridge/transport/client_session.h"
#include "bridge/transport/remote_memory.h"
#include "cosim/results_json.h"
#include "cosim/served_system.h"
#include "cosim/system_config.h"
#include "cosim/system_run.h"
#include "models/mxu/assembler.h"
#include "ring_exchange.h"
#include "server_fixture.h"

using namespace mxc;
using namespace mxc::transport;
using mxc::transport::testing::ring_exchange;
using mxc::transport::testing::ServerThread;

namespace {

const std::string kConfigs = std::string(MXCOSIM_SOURCE_DIR) + "/configs";

SystemRunResult run(const SystemRunOptions& o, const Workload* w) { return w ? run_system(o, *w) : run_system(o); }

// The same run with the memories (and fabric) served by a server thread.
std::string remote_json(SystemRunOptions o, const Workload* w, const std::string& tag,
                        std::uint64_t* round_trips = nullptr, bool lookahead = true, ServedParts serve = {}) {
  ServerOptions so;
  so.system = served_system(o.system);
  so.seed = o.seed;
  so.serve = serve;
  ServerThread st(so, tag);
  std::string json;
  {
    ClientOptions co;
    co.address = st.address;
    co.system = so.system;
    co.seed = o.seed;
    co.lookahead = lookahead;
    auto s = ClientSession::connect(co);
    // The client learns from the handshake what is served, and builds the rest.
    CHECK(s->serves_memories() == serve.memories);
    CHECK((s->fabric_chips() >= o.system.chips) == (serve.fabric && o.system.chips > 1));
    CHECK((s->fabric_chips() == 0) == !(serve.fabric && o.system.chips > 1));
    use_served_models(o, s);
    CHECK(bool(o.make_memory) == serve.memories);
    CHECK(bool(o.make_fabric) == (serve.fabric && o.system.chips > 1));
    const SystemRunResult r = run(o, w);
    json = results_json(o, r).dump();
    if (round_trips) *round_trips = s->round_trips();
    s->bye();
  }
  st.join();
  const auto out = st.server.outcomes();
  REQUIRE(out.size() == 1);
  CHECK(out[0].ok);
  // Only an ideal memory has the fixed-latency contract lookahead needs, and only a served one uses it.
  CHECK(out[0].lookahead == (lookahead && serve.memories && o.system.memory == "ideal"));
  return json;
}

}  // namespace

TEST_CASE("remote: single-chip GEMM on the ideal memory gives byte-identical results") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/tile4_ideal.yaml");
  o.workload.shape = {8, 8, 8, DType::kInt8};
  o.seed = 3;
  const SystemRunResult local = run_system(o);
  REQUIRE(local.passed);
  REQUIRE(local.hbm_read_bytes > 0);
  const std::string want = results_json(o, local).dump();
  std::uint64_t lockstep = 0, lookahead = 0;
  CHECK(remote_json(o, nullptr, "gemm-ideal", &lockstep, false) == want);
  CHECK(remote_json(o, nullptr, "gemm-ideal-la", &lookahead, true) == want);
  CHECK(lockstep > 0);
  // Lookahead waits only for completions not yet pushed: far fewer waits than exchanges.
  CHECK(lookahead < lockstep / 2);
}

TEST_CASE("remote: lookahead mode is exact when the memory refuses (full) and at 0 latency") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/tile4_ideal.yaml");
  o.workload.shape = {8, 8, 8, DType::kInt8};
  for (const auto& [latency, outstanding] : {std::pair<Time, std::uint32_t>{400'000, 1}, {0, 2}, {150'000, 3}}) {
    o.system.ideal_latency_ps = latency;
    o.system.ideal_outstanding = outstanding;
    const SystemRunResult local = run_system(o);
    REQUIRE(local.passed);
    CHECK(remote_json(o, nullptr, "refuse-" + std::to_string(outstanding)) == results_json(o, local).dump());
  }
}

TEST_CASE("remote: single-chip GEMM on HBM2 gives byte-identical results") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/tile8_hbm2.yaml");
  o.system.rows = o.system.cols = 4;  // the verilated size every build has
  o.workload.shape = {8, 8, 8, DType::kBf16};
  const SystemRunResult local = run_system(o);
  REQUIRE(local.passed);
  CHECK(remote_json(o, nullptr, "gemm-hbm") == results_json(o, local).dump());
}

TEST_CASE("remote: two chips on HBM2 and a ring fabric give byte-identical results") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_rtl.yaml");
  o.workload.shape = {8, 8, 8, DType::kInt8};
  const SystemRunResult local = run_system(o);
  REQUIRE(local.passed);
  CHECK(remote_json(o, nullptr, "gemm-2chip") == results_json(o, local).dump());

  // Traffic over the fabric itself: every tile sends a row to the next chip.
  const Workload w = ring_exchange(o.system, 1);
  const SystemRunResult ring = run_system(o, w);
  REQUIRE(ring.passed);
  REQUIRE(ring.ici_bytes == 2 * 2 * o.system.cols);  // 2 chips x 2 tiles x one row
  CHECK(remote_json(o, &w, "ring-2chip") == results_json(o, ring).dump());

  // The same on ideal memories: pushed completions interleave with the fabric's lock-step exchanges.
  o.system.memory = "ideal";
  const SystemRunResult ideal_gemm = run_system(o);
  REQUIRE(ideal_gemm.passed);
  CHECK(remote_json(o, nullptr, "gemm-2chip-ideal") == results_json(o, ideal_gemm).dump());
  const SystemRunResult ideal_ring = run_system(o, w);
  REQUIRE(ideal_ring.passed);
  CHECK(remote_json(o, &w, "ring-2chip-ideal") == results_json(o, ideal_ring).dump());
}

TEST_CASE("remote: a server of only the memories or only the fabric gives byte-identical results") {
  // What the server does not serve, the client simulates itself.
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_rtl.yaml");
  o.workload.shape = {8, 8, 8, DType::kInt8};
  const Workload w = ring_exchange(o.system, 1);
  for (const char* memory : {"hbm", "ideal"}) {
    o.system.memory = memory;
    const SystemRunResult ring = run_system(o, w);
    REQUIRE(ring.passed);
    REQUIRE(ring.ici_bytes == 2 * 2 * o.system.cols);
    const std::string want = results_json(o, ring).dump();
    INFO(memory);
    CHECK(remote_json(o, &w, std::string("mem-only-") + memory, nullptr, true, {true, false}) == want);
    CHECK(remote_json(o, &w, std::string("fabric-only-") + memory, nullptr, true, {false, true}) == want);
  }
  // A single chip has no fabric: serving only the memories is serving all of it.
  o.system = load_system_config(kConfigs + "/tile8_hbm2.yaml");
  o.system.rows = o.system.cols = 4;
  const SystemRunResult single = run_system(o);
  REQUIRE(single.passed);
  CHECK(remote_json(o, nullptr, "mem-only-1chip", nullptr, true, {true, false}) == results_json(o, single).dump());
}

TEST_CASE("remote: a served HBM memory reports its requests beyond capacity as a local one does") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_rtl.yaml");
  o.workload.kind = "program";
  o.workload.program_files = {std::string(MXCOSIM_SOURCE_DIR) + "/tests/programs/beyond_capacity.s"};
  const SystemRunResult local = run_system(o);
  REQUIRE(local.passed);
  REQUIRE(local.hbm_requests_beyond_capacity > 0);
  const std::string want = results_json(o, local).dump();
  CHECK(remote_json(o, nullptr, "beyond-all") == want);
  CHECK(remote_json(o, nullptr, "beyond-mem", nullptr, true, {true, false}) == want);
}

TEST_CASE("remote: a served HBM memory runs the timing checker exactly when the system asks for it") {
  // None of the shipped presets sets check_timing: the system's checks.hbm_timing_check decides.
  for (const bool on : {true, false}) {
    SystemRunOptions o;
    o.system = load_system_config(kConfigs + "/tile8_hbm2.yaml");
    o.system.hbm_timing_check = on;
    ServerOptions so;
    so.system = served_system(o.system);
    ServerThread st(so, on ? "checker-on" : "checker-off");
    ClientOptions co;
    co.address = st.address;
    co.system = so.system;
    co.seed = so.seed;
    auto s = ClientSession::connect(co);
    auto mem = ClientSession::make_memory(s, 0, "chip0.mem");
    auto& remote = dynamic_cast<RemoteMemoryTarget&>(*mem);
    MemRequest req;
    req.id = 1;
    req.addr = 0x1000;
    req.bytes = 32;
    REQUIRE(remote.send(req, 0));
    remote.advance_to(1'000'000);
    remote.finish(2'000'000);
    INFO("hbm_timing_check " << on);
    REQUIRE(remote.end_report());
    CHECK(remote.end_report()->timing_checked == on);
    CHECK(remote.end_report()->violations.empty());
    CHECK(remote.end_report()->error.empty());
    s->bye();
  }
  // A server whose system differs in this setting is a different system.
  SystemConfig c = load_system_config(kConfigs + "/tile8_hbm2.yaml");
  ServedSystem a = served_system(c);
  c.hbm_timing_check = !c.hbm_timing_check;
  CHECK(config_hash(a) != config_hash(served_system(c)));
}

TEST_CASE("remote: a server that would serve nothing is refused, a client meets what it serves") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/tile4_ideal.yaml");
  ServerOptions so;
  so.system = served_system(o.system);
  so.serve = parse_served_parts("fabric", "--serve");
  CHECK_THROWS_WITH(Server(so), Catch::Contains("two or more chips"));
  CHECK_THROWS_WITH(parse_served_parts("tiles", "--serve"), Catch::Contains("--serve: 'tiles' is not all, memories or fabric"));
  CHECK(to_string(parse_served_parts("memories", "--serve")) == "memories");
  CHECK(to_string(parse_served_parts("all", "--serve")) == "all");

  // A server of the fabric only refuses a memory request with the reason.
  o.system = load_system_config(kConfigs + "/chip2x2_model.yaml");
  so.system = served_system(o.system);
  ServerThread st(so, "fabric-only-refuse");
  ClientOptions co;
  co.address = st.address;
  co.system = so.system;
  co.seed = so.seed;
  auto s = ClientSession::connect(co);
  CHECK_FALSE(s->serves_memories());
  CHECK(s->contract().capacity == 0);  // no served memory, no lookahead
  MemRequest req;
  req.bytes = 4;
  CHECK_THROWS_WITH(s->request(0, req, 0, false), Catch::Contains("this server serves only the fabric"));
}

TEST_CASE("remote: a server that dies mid-run fails the run with a clear error, no hang") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/tile4_ideal.yaml");
  o.workload.shape = {8, 8, 8, DType::kInt8};
  ServerOptions so;
  so.system = served_system(o.system);
  so.drop_after = 40;
  ServerThread st(so, "die");
  ClientOptions co;
  co.address = st.address;
  co.system = so.system;
  co.reply_timeout = Millis(5000);
  auto s = ClientSession::connect(co);
  o.make_memory = [s](std::uint32_t c, const std::string& n) { return ClientSession::make_memory(s, c, n); };
  CHECK_THROWS_WITH(run_system(o), Catch::Contains("transport: ") && Catch::Contains("closed the connection"));
}
