// Timeline helpers: tracks per unit / channel / route, exact slice times,
// overlapping slices on separate lanes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cosim/timeline.h"
#include "tests/checkers/trace_file.h"
#include "tests/temp_dir.h"

using namespace mxc;
using nlohmann::json;

namespace {

json written(const std::function<void(TraceWriter&)>& fn) {
  const mxc::testing::TempDir tmp;
  const std::string path = (tmp.path() / "t.json.gz").string();
  {
    TraceWriter t(path);
    fn(t);
    t.close();
  }
  return json::parse(test::read_trace_text(path))["traceEvents"];
}

/// tid -> track name, from the thread_name metadata.
std::map<int, std::string> tracks(const json& ev) {
  std::map<int, std::string> out;
  for (const json& e : ev)
    if (e["name"] == "thread_name") out[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
  return out;
}

std::vector<json> of_phase(const json& ev, const std::string& ph) {
  std::vector<json> out;
  for (const json& e : ev)
    if (e["ph"] == ph) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("instructions of a run stopped early: never dispatched, not drawn, and unfinished, an instant", "[timeline]") {
  // A hang after the load completed and the matmul was dispatched: the output never dispatched.
  Program p(3);
  p[0].op = Opcode::DMA_LOAD;
  p[1].op = Opcode::MATMUL;
  p[2].op = Opcode::OUTPUT;
  std::vector<InstrEvent> ev = {{0, 1, 10}, {1, 11, 0}, {2, 0, 0}};
  ev[1].done = false;
  ev[2].dispatched = ev[2].done = false;
  const ClockDomain clk("tile", 1000);
  const json out = written([&](TraceWriter& t) { trace_instructions(t, 3, p, ev, clk); });
  const auto slices = of_phase(out, "X");
  REQUIRE(slices.size() == 1);  // the load; the output was a slice at time 0, the matmul one of no length
  CHECK(slices[0]["args"]["index"] == 0);
  const auto instants = of_phase(out, "i");
  REQUIRE(instants.size() == 1);
  CHECK(instants[0]["name"] == "MATMUL (unfinished)");
  CHECK(instants[0]["ts"].get<double>() == Approx(0.011));  // dispatched at cycle 11 = 11 ns
  CHECK_FALSE(instants[0]["args"].contains("end_cycle"));
  CHECK(instants[0]["args"]["start_cycle"] == 11);
}

TEST_CASE("instructions: one track per unit, slices from dispatch to done", "[timeline]") {
  Program p(5);
  p[0].op = Opcode::DMA_LOAD;
  p[1].op = Opcode::DMA_LOAD;
  p[2].op = Opcode::MATMUL;
  p[3].op = Opcode::FENCE;
  p[4].op = Opcode::ICI_SEND;
  // The second load is dispatched while the first runs: it overlaps, so it gets lane 2.
  const std::vector<InstrEvent> ev = {{0, 1, 10}, {1, 2, 15}, {2, 11, 20}, {3, 21, 21}, {4, 22, 30}};
  const ClockDomain clk("tile", 1000);  // 1 GHz: cycle n at n ns
  const json out = written([&](TraceWriter& t) { trace_instructions(t, 3, p, ev, clk); });

  const auto names = tracks(out);
  CHECK(names.at(kTraceTidDispatch) == "dispatch");
  CHECK(names.at(kTraceTidDma) == "dma");
  CHECK(names.at(kTraceTidDma + 1) == "dma #2");
  CHECK(names.at(kTraceTidCompute) == "compute");
  CHECK(names.at(kTraceTidIci) == "ici");
  CHECK(names.size() == 5);

  const auto x = of_phase(out, "X");
  REQUIRE(x.size() == 4);
  CHECK(x[0]["name"] == "DMA_LOAD");
  CHECK(x[0]["tid"] == kTraceTidDma);
  CHECK(x[0]["pid"] == 3);
  CHECK(x[0]["ts"].get<double>() == Approx(0.001));  // cycle 1 = 1000 ps = 0.001 us
  CHECK(x[0]["dur"].get<double>() == Approx(0.009));
  CHECK(x[0]["args"]["index"] == 0);
  CHECK(x[0]["args"]["instr"] == describe(p[0]));
  CHECK(x[1]["tid"] == kTraceTidDma + 1);
  CHECK(x[2]["name"] == "MATMUL");
  CHECK(x[2]["tid"] == kTraceTidCompute);
  CHECK(x[3]["tid"] == kTraceTidIci);
  CHECK(x[3]["args"]["end_cycle"] == 30);

  const auto i = of_phase(out, "i");
  REQUIRE(i.size() == 1);
  CHECK(i[0]["name"] == "FENCE");
  CHECK(i[0]["tid"] == kTraceTidDispatch);
  CHECK(i[0]["ts"].get<double>() == Approx(0.021));
}

TEST_CASE("a slice starting where the previous one ended reuses its lane", "[timeline]") {
  Program p(2);
  p[0].op = Opcode::OUTPUT;
  p[1].op = Opcode::OUTPUT;
  const std::vector<InstrEvent> ev = {{0, 0, 5}, {1, 5, 9}};
  const json out = written([&](TraceWriter& t) { trace_instructions(t, 0, p, ev, ClockDomain("c", 1000)); });
  const auto x = of_phase(out, "X");
  REQUIRE(x.size() == 2);
  CHECK(x[0]["tid"] == kTraceTidCompute);
  CHECK(x[1]["tid"] == kTraceTidCompute);
}

TEST_CASE("memory: one track per source and direction, lanes for requests in flight", "[timeline]") {
  auto e = [](std::uint64_t id, std::uint32_t src, bool write, Time issue, Time accept, Time complete) {
    MemoryLogEntry m;
    m.id = id;
    m.source = src;
    m.addr = 0x1000 + 64 * id;
    m.bytes = 64;
    m.write = write;
    m.issue = issue;
    m.accept = accept;
    m.complete = complete;
    return m;
  };
  const MemoryLog log = {e(0, 1, true, 0, 0, 5000), e(1, 0, false, 100, 200, 3000),
                                           e(2, 0, false, 1000, 1000, 4000), e(3, 0, false, 3000, 3000, 6000),
                                           e(4, 0, false, 3500, 3500, kNever)};
  const json out = written([&](TraceWriter& t) { trace_memory(t, 7, log); });
  const auto names = tracks(out);
  // Channel 0 = source 0 read, channel 1 = source 1 write.
  CHECK(names.at(kTraceTidChannelBase) == "source 0 read");
  CHECK(names.at(kTraceTidChannelBase + 1) == "source 0 read #2");
  CHECK(names.at(kTraceTidChannelBase + kTraceLanesPerTrack) == "source 1 write");
  CHECK(names.size() == 3);
  const auto x = of_phase(out, "X");
  REQUIRE(x.size() == 4);
  // Read 1 [100, 3000) lane 0; read 2 [1000, 4000) overlaps -> lane 1; read 3 [3000, 6000) fits lane 0.
  CHECK(x[0]["args"]["id"] == 1);
  CHECK(x[0]["tid"] == kTraceTidChannelBase);
  CHECK(x[0]["ts"].get<double>() == Approx(0.0001));
  CHECK(x[0]["dur"].get<double>() == Approx(0.0029));
  CHECK(x[0]["args"]["addr"] == "0x1040");
  CHECK(x[0]["args"]["accept_ps"] == 200);
  CHECK(x[1]["tid"] == kTraceTidChannelBase + 1);
  CHECK(x[2]["args"]["id"] == 3);
  CHECK(x[2]["tid"] == kTraceTidChannelBase);
  CHECK(x[3]["name"] == "write");
  const auto i = of_phase(out, "i");
  REQUIRE(i.size() == 1);
  CHECK(i[0]["name"] == "read (incomplete)");
  CHECK(i[0]["args"]["id"] == 4);
}

TEST_CASE("ici: one track per route, slices from injection to delivery", "[timeline]") {
  std::vector<IciPacket> pk(3);
  auto packet = [](std::uint64_t id, std::uint32_t src, std::uint32_t dst, std::uint32_t bytes, Time inject,
                   Time deliver) {
    IciPacket p;
    p.id = id;
    p.src = src;
    p.dst = dst;
    p.bytes = bytes;
    p.inject = inject;
    p.deliver = deliver;
    return p;
  };
  pk[0] = packet(1, 1, 0, 64, 0, 800);
  pk[1] = packet(2, 0, 1, 32, 100, 900);
  pk[2] = packet(3, 0, 1, 32, 900, 1700);
  const json out = written([&](TraceWriter& t) { trace_ici(t, 9, pk); });
  const auto names = tracks(out);
  CHECK(names.at(kTraceTidRouteBase) == "chip 0 -> chip 1");
  CHECK(names.at(kTraceTidRouteBase + kTraceLanesPerTrack) == "chip 1 -> chip 0");
  CHECK(names.size() == 2);
  const auto x = of_phase(out, "X");
  REQUIRE(x.size() == 3);
  CHECK(x[0]["args"]["id"] == 2);
  CHECK(x[1]["args"]["id"] == 3);
  CHECK(x[1]["tid"] == kTraceTidRouteBase);  // starts at 900, where packet 2 ended
  CHECK(x[1]["dur"].get<double>() == Approx(0.0008));
  CHECK(x[2]["args"]["bytes"] == 64);
}

TEST_CASE("ici: a row a chip sends itself shows its own number as row and no packet id", "[timeline]") {
  // Rows a chip sends itself and fabric packets are numbered apart, both from 0: shown as ids
  // both, a search for packet 0 found two.
  std::vector<IciPacket> pk(2);
  pk[0].id = 0, pk[0].src = 0, pk[0].dst = 1, pk[0].bytes = 64, pk[0].inject = 0, pk[0].deliver = 500;
  pk[1].id = 0, pk[1].src = 1, pk[1].dst = 1, pk[1].bytes = 64, pk[1].inject = 100, pk[1].deliver = 100;
  const json out = written([&](TraceWriter& t) { trace_ici(t, 9, pk); });
  const auto x = of_phase(out, "X");
  REQUIRE(x.size() == 2);
  CHECK(x[0]["args"]["id"] == 0);
  CHECK_FALSE(x[0]["args"].contains("row"));
  CHECK(x[1]["args"]["row"] == 0);
  CHECK_FALSE(x[1]["args"].contains("id"));
}

TEST_CASE("hbm commands: one-cycle slices on a row and a column track per pseudo-channel", "[timeline]") {
  std::vector<HbmCommandRecord> cmds(4);
  cmds[0].pc = 5;
  cmds[0].cmd = {hbm::Cmd::kAct, 2, 17, 0, 10};
  cmds[1].pc = 1;
  cmds[1].cmd = {hbm::Cmd::kRd, 0, 3, 4, 12};
  cmds[2].pc = 5;
  cmds[2].cmd = {hbm::Cmd::kRdA, 2, 17, 8, 24};
  cmds[3].pc = 5;  // an ACT in the RDA's cycle (dual command buses): a track of its own
  cmds[3].cmd = {hbm::Cmd::kAct, 3, 40, 0, 24};
  const ClockDomain hbm_clk("hbm", 625);  // 1.6 GHz
  const json out = written([&](TraceWriter& t) { trace_hbm_commands(t, 4, cmds, hbm_clk); });
  // Tracks named in pseudo-channel order: pc 1 before pc 5, row before column.
  std::vector<json> names;
  for (const json& e : out)
    if (e["name"] == "thread_name") names.push_back(e);
  REQUIRE(names.size() == 4);
  CHECK(names[0]["args"]["name"] == "pc 1 row");
  CHECK(names[0]["tid"] == kTraceTidPseudoChannelBase + 2);
  CHECK(names[1]["args"]["name"] == "pc 1 column");
  CHECK(names[1]["tid"] == kTraceTidPseudoChannelBase + 3);
  CHECK(names[2]["args"]["name"] == "pc 5 row");
  CHECK(names[3]["tid"] == kTraceTidPseudoChannelBase + 11);
  const auto x = of_phase(out, "X");
  REQUIRE(x.size() == 4);
  CHECK(x[0]["name"] == "ACT");
  CHECK(x[0]["tid"] == kTraceTidPseudoChannelBase + 10);
  CHECK(x[1]["tid"] == kTraceTidPseudoChannelBase + 3);  // RD: pc 1's column track
  CHECK(x[2]["tid"] == kTraceTidPseudoChannelBase + 11);
  CHECK(x[3]["tid"] == kTraceTidPseudoChannelBase + 10);  // same cycle as the RDA, another track
  CHECK(x[0]["ts"].get<double>() == Approx(0.00625));  // cycle 10 x 625 ps
  CHECK(x[0]["dur"].get<double>() == Approx(0.000625));
  CHECK(x[0]["args"]["row"] == 17);
  CHECK(x[2]["name"] == "RDA");
  CHECK(x[2]["args"]["col"] == 8);
}

namespace {

/// Whether any two slices on one track overlap (the viewer cannot nest them).
bool slices_overlap(const std::vector<json>& x) {
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> by_track;
  for (const json& e : x) {
    const double ts = e["ts"].get<double>();
    by_track[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back({ts, ts + e["dur"].get<double>()});
  }
  for (auto& [track, spans] : by_track) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
      if (spans[i].first < spans[i - 1].second) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("thousands of packets in flight on one route each get a lane, beside another route's", "[timeline]") {
  // A fabric's queue holds 2500 packets of route 0 -> 1 in flight at once, past the route's
  // 1000 own track ids; route 1 -> 0 has two. Times in ps, 1 us apart: exact in the file.
  std::vector<IciPacket> pk;
  for (std::uint64_t i = 0; i < 2500; ++i) {
    IciPacket p;
    p.id = i;
    p.src = 0;
    p.dst = 1;
    p.bytes = 16;
    p.inject = i * 1'000'000;
    p.deliver = 3'000'000'000;
    pk.push_back(p);
  }
  for (std::uint64_t i = 0; i < 2; ++i) {
    IciPacket p;
    p.id = 9000 + i;
    p.src = 1;
    p.dst = 0;
    p.inject = 0;
    p.deliver = 5'000'000;
    pk.push_back(p);
  }
  const json out = written([&](TraceWriter& t) { trace_ici(t, 9, pk); });
  const auto x = of_phase(out, "X");
  REQUIRE(x.size() == 2502);
  CHECK_FALSE(slices_overlap(x));
  const auto names = tracks(out);
  CHECK(names.size() == 2502);  // every packet overlaps every other of its route: a lane each
  std::set<std::string> distinct;
  for (const auto& [tid, name] : names) distinct.insert(name);
  CHECK(distinct.size() == names.size());
  CHECK(distinct.count("chip 0 -> chip 1 #2500") == 1);
  CHECK(names.at(kTraceTidRouteBase + kTraceLanesPerTrack) == "chip 1 -> chip 0");
  CHECK(names.at(kTraceTidRouteBase + kTraceLanesPerTrack + 1) == "chip 1 -> chip 0 #2");
  // Lanes past the route's own ids list right after its own lanes, one after another in lane
  // order, before the next route: sort indices by lane name.
  std::map<std::string, std::int64_t> sort_of;
  for (const json& e : out)
    if (e["name"] == "thread_sort_index")
      sort_of[names.at(e["tid"].get<int>())] = e["args"]["sort_index"].get<std::int64_t>();
  REQUIRE(sort_of.size() == 2502);
  const auto lane = [&](int k) { return sort_of.at("chip 0 -> chip 1" + (k == 1 ? "" : " #" + std::to_string(k))); };
  const std::int64_t stride = std::int64_t{1} << 30;
  CHECK(lane(1) == 2'000'000 * stride);     // own lanes: their ids times 2^30
  CHECK(lane(1000) == 2'000'999 * stride);  // the last own lane
  CHECK(lane(1001) == 2'000'999 * stride + 1);
  CHECK(lane(2500) == 2'000'999 * stride + 1500);
  for (int k = 2; k <= 2500; ++k)
    if (lane(k) <= lane(k - 1)) FAIL("lane " << k << " sorts at " << lane(k) << ", not after lane " << k - 1);
  CHECK(sort_of.at("chip 1 -> chip 0") == 2'001'000 * stride);
  CHECK(lane(2500) < sort_of.at("chip 1 -> chip 0"));
}

TEST_CASE("more instructions of a unit in flight than its 100 lanes, and reads than 1000, never overlap",
          "[timeline]") {
  Program p(150);
  std::vector<InstrEvent> ev;
  for (std::size_t i = 0; i < p.size(); ++i) {
    p[i].op = Opcode::DMA_LOAD;
    ev.push_back({i, i + 1, 1000});  // all still running at cycle 999
  }
  // 1200 reads in flight together on the same process: past their channel's 1000 lanes too.
  MemoryLog log;
  for (std::uint64_t i = 0; i < 1200; ++i) {
    MemoryLogEntry m;
    m.id = i;
    m.bytes = 64;
    m.issue = m.accept = i * 1'000'000;
    m.complete = 5'000'000'000;
    log.push_back(m);
  }
  const json out = written([&](TraceWriter& t) {
    trace_instructions(t, 1, p, ev, ClockDomain("tile", 1000));
    trace_memory(t, 1, log);
  });
  const auto x = of_phase(out, "X");
  REQUIRE(x.size() == 1350);
  CHECK_FALSE(slices_overlap(x));
  // dispatch, 150 dma lanes and 1200 read lanes, every track id named once
  CHECK(tracks(out).size() == 1351);
}
