// Presets load with their cited figures; bad files give file, line, field.
#include <catch2/catch.hpp>
#include <tuple>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/hbm/config_loader.h"
#include "tests/temp_dir.h"

using namespace mxc::hbm;

namespace {
std::string preset_text(const std::string& name) {
  std::ifstream in(std::string(MXCOSIM_SOURCE_DIR) + "/configs/hbm/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}
/// `text` with `from` replaced by `to`, parsed as the file f.yaml.
MemoryConfig parse_edited(const std::string& text, const std::string& from, const std::string& to) {
  return parse_memory_config(replaced(text, from, to), "f.yaml");
}
/// The 1-based line of the first occurrence of `needle` in `text`.
std::string line_of(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  REQUIRE(at != std::string::npos);
  std::size_t line = 1;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n';
  return std::to_string(line);
}
}  // namespace

TEST_CASE("presets give the peak bandwidths of the standards") {
  // Peak = 1024 pins x rate / 8 per stack (at the model's clock).
  const MemoryConfig h2 = parse_memory_config(preset_text("hbm2.yaml"), "hbm2.yaml");
  CHECK(h2.device.peak_gbps() == Approx(256.0));
  CHECK(h2.device.t.burst_cycles == 2);
  CHECK(h2.device.t.RFC == 260);
  CHECK(h2.device.t.REFI == 3900);
  // A 4-high stack of 8 Gb dies: 8 channels x 2 x 16 banks x 16384 rows x 1 KB = 4 GiB, 4 Gb a
  // channel, whose tRFC (above) is 260 ns.
  CHECK(h2.device.org.stack_bytes() == 4ull << 30);
  CHECK(h2.device.t.REFIsb == 243);  // 3900 / 16 = 243.75 ns, rounded down to 1 ns cycles
  CHECK(parse_memory_config(preset_text("hbm2e_3200.yaml"), "x").device.peak_gbps() == Approx(409.6));
  const MemoryConfig e36 = parse_memory_config(preset_text("hbm2e_3600.yaml"), "x");
  // 3.6 Gb/s nominal; at the model's tCK of 556 ps, 1024 pins x 2 beats / 0.556 ns / 8.
  CHECK(e36.device.peak_gbps() == Approx(1024 * 2 / 0.556 / 8).epsilon(1e-12));
  CHECK(e36.device.peak_gbps() < 460.8);
  CHECK(e36.device.t.RCDRD == 26);  // ceil(14 ns / 0.556 ns)
  CHECK(e36.device.t.REFI == 7014);  // floor(3900 ns / 0.556 ns): an interval rounds down
  const MemoryConfig h3 = parse_memory_config(preset_text("hbm3.yaml"), "x");
  CHECK(h3.device.peak_gbps() == Approx(819.2));
  CHECK(h3.device.org.pcs() == 32);
  CHECK(h3.device.t.burst_cycles == 2);  // BL8 at 4 beats per clock
  // tRREFD is 8 ns on every preset, in cycles of its clock.
  CHECK(h2.device.t.RREFD == 8);
  CHECK(e36.device.t.RREFD == 15);  // ceil(8 ns / 0.556 ns)
  CHECK(h3.device.t.RREFD == 13);   // ceil(8 ns / 0.625 ns)
  // A device that leaves it out gets the same 8 ns.
  const std::string no_rrefd = replaced(preset_text("hbm3.yaml"), "RREFD: 8ns", "");
  CHECK(parse_memory_config(no_rrefd, "x").device.t.RREFD == 13);
  // tPPD: HBM3's 2 cycles; none (0) on HBM2 and HBM2E, whose standard has no such rule, and on a
  // device that leaves it out. Cycles or nanoseconds, as any timing.
  CHECK(h3.device.t.PPD == 2);
  for (const MemoryConfig* c : {&h2, &e36}) CHECK(c->device.t.PPD == 0);
  CHECK(parse_memory_config(replaced(preset_text("hbm3.yaml"), "PPD: 2", ""), "x").device.t.PPD == 0);
  CHECK(parse_memory_config(replaced(preset_text("hbm3.yaml"), "PPD: 2", "PPD: 1.5ns"), "x").device.t.PPD == 3);
  CHECK_THROWS_WITH(parse_edited(preset_text("hbm3.yaml"), "PPD: 2", "PPD: -1"),
                    Catch::Contains("field 'device.timing.PPD'"));
  // An ACT holds the row command bus two cycles on every preset, and on a
  // device that leaves ACT_cycles out.
  for (const MemoryConfig* c : {&h2, &e36, &h3}) CHECK(c->device.t.ACT_cycles == 2);
  const std::string no_act = replaced(preset_text("hbm3.yaml"), "ACT_cycles: 2", "");
  CHECK(parse_memory_config(no_act, "x").device.t.ACT_cycles == 2);
  const std::string base = preset_text("hbm2.yaml");
  CHECK(parse_edited(base, "ACT_cycles: 2", "ACT_cycles: 1").device.t.ACT_cycles == 1);
  CHECK_THROWS_WITH(parse_edited(base, "ACT_cycles: 2", "ACT_cycles: 0"), Catch::Contains("device.timing.ACT_cycles"));
  CHECK_THROWS_WITH(parse_edited(base, "ACT_cycles: 2", "ACT_cycles: 2ns"),
                    Catch::Contains("device.timing.ACT_cycles"));
  CHECK_THROWS_WITH(parse_edited(base, "ACT_cycles: 2", "ACT_cycles: 16777217"),
                    Catch::Contains("field 'device.timing.ACT_cycles': too large"));
  // The pseudo-channels of a channel share its command buses unless told not to.
  for (const MemoryConfig* c : {&h2, &e36, &h3}) CHECK(c->controller.shared_command_bus);
  CHECK(parse_edited(base, "shared_command_bus: true", "").controller.shared_command_bus);
  CHECK_FALSE(
      parse_edited(base, "shared_command_bus: true", "shared_command_bus: false").controller.shared_command_bus);
  CHECK_THROWS_WITH(parse_edited(base, "shared_command_bus: true", "shared_command_bus: 2"),
                    Catch::Contains("controller.shared_command_bus"));
  // Refreshes owed: the HBM2 and HBM2E presets 7, HBM3's 0 (JESD238's
  // limit unverified), absent 0, at most 7 (JEDEC's 8 with the one falling due).
  for (const MemoryConfig* c : {&h2, &e36}) CHECK(c->controller.refresh_postpone == 7);
  CHECK(h3.controller.refresh_postpone == 0);
  CHECK(parse_edited(base, "refresh_postpone: 7", "").controller.refresh_postpone == 0);
  CHECK(parse_edited(base, "refresh_postpone: 7", "refresh_postpone: 0").controller.refresh_postpone == 0);
  CHECK_THROWS_WITH(parse_edited(base, "refresh_postpone: 7", "refresh_postpone: 8"),
                    Catch::Matches("f\\.yaml:[0-9]+: field 'controller\\.refresh_postpone': at most 7 .*"));
  CHECK_THROWS_WITH(parse_edited(base, "refresh_postpone: 7", "refresh_postpone: -1"),
                    Catch::Contains("controller.refresh_postpone"));
  // Per-bank refresh is never postponed: a count with it in the same file
  // is refused, not ignored; over the file's all-bank refresh, a command
  // line's per-bank override leaves the file's count unused.
  const std::string per_bank = replaced(base, "refresh: all_bank", "refresh: per_bank");
  CHECK_THROWS_WITH(parse_memory_config(per_bank, "f.yaml"),
                    Catch::StartsWith("f.yaml:" + line_of(per_bank, "refresh_postpone: 7") +
                                      ": field 'controller.refresh_postpone': 7 with refresh per_bank, which is never "
                                      "postponed"));
  CHECK(parse_edited(per_bank, "refresh_postpone: 7", "refresh_postpone: 0").controller.refresh ==
        RefreshMode::kPerBank);
  CHECK(parse_memory_config(base, "f.yaml", RefreshMode::kPerBank).controller.refresh == RefreshMode::kPerBank);
  // No refresh has none to postpone.
  const std::string none = replaced(base, "refresh: all_bank", "refresh: none");
  CHECK_THROWS_WITH(parse_memory_config(none, "f.yaml"),
                    Catch::StartsWith("f.yaml:" + line_of(none, "refresh_postpone: 7") +
                                      ": field 'controller.refresh_postpone': 7 with refresh none, which issues no "
                                      "refresh"));
  CHECK(parse_memory_config(base, "f.yaml", RefreshMode::kNone).controller.refresh == RefreshMode::kNone);
}

TEST_CASE("config errors name file, line and field") {
  const std::string base = preset_text("hbm2.yaml");
  CHECK_THROWS_WITH(parse_edited(base, "read_queue: 32", "read_queue: -3"),
                    Catch::Matches("f\\.yaml:[0-9]+: field 'controller\\.read_queue': expected a positive integer.*"));
  CHECK_THROWS_WITH(parse_edited(base, "    CL: 14\n", "    CL: fast\n"), Catch::Contains("device.timing.CL"));
  CHECK_THROWS_WITH(parse_edited(base, "    CL: 14\n", ""), Catch::Contains("field 'device.timing.CL': missing"));
  CHECK_THROWS_WITH(parse_edited(base, "tCK_ps: 1000", "tCK_ps: 15"),
                    Catch::Contains("field 'device.timing.tCK_ps': must be at least 16"));
  CHECK_THROWS_WITH(parse_edited(base, "page_policy: open", "page_policy: ajar"),
                    Catch::Contains("controller.page_policy"));
  // At its line (it was "controller.starvation_cap must be <= 65535", no file or line).
  const std::string cap = replaced(base, "starvation_cap: 16", "starvation_cap: 100000");
  CHECK_THROWS_WITH(parse_memory_config(cap, "f.yaml"),
                    "f.yaml:" + line_of(cap, "starvation_cap: 100000") +
                        ": field 'controller.starvation_cap': must be <= 65535, got 100000");
  CHECK_THROWS_WITH(parse_edited(base, "stacks: 1", "stackz: 1"), Catch::Contains("field 'memory.stackz': unknown key"));
  CHECK_THROWS_WITH(parse_edited(base, "\"ro-ba-co:4-ch-pc-bg-co:1\"", "\"ro-ba-co-ch-pc\""),
                    Catch::Contains("controller.address_mapping"));
  CHECK_THROWS_WITH(parse_edited(base, "rows: 16384", "rows: [1, 2]"), Catch::Contains("device.organisation.rows"));
  CHECK_THROWS_WITH(parse_memory_config("device: {\n  name: x\n", "f.yaml"), Catch::Contains("f.yaml:"));
  CHECK_THROWS_WITH(load_memory_config("/nonexistent.yaml"), Catch::Contains("/nonexistent.yaml: cannot open"));
  // The line number points at the offending entry.
  const std::string bad = replaced(base, "write_queue: 32", "write_queue: 0");
  std::size_t line = 1;
  for (char c : bad.substr(0, bad.find("write_queue: 0"))) line += c == '\n';
  CHECK_THROWS_WITH(parse_memory_config(bad, "f.yaml"),
                    Catch::Contains("f.yaml:" + std::to_string(line) + ": field 'controller.write_queue'"));
}

TEST_CASE("a memory config built in code is checked like a loaded one") {
  MemoryConfig cfg = parse_memory_config(preset_text("hbm2.yaml"), "hbm2.yaml");
  CHECK_NOTHROW(validate(cfg));
  cfg.device.t.tCK_ps = 15;  // cycle counts would no longer fit the controller's packed keys
  CHECK_THROWS_WITH(validate(cfg), Catch::Contains("field 'device.timing.tCK_ps': must be >= 16 ps"));
  cfg.device.t.tCK_ps = 16;
  CHECK_NOTHROW(validate(cfg));
  // The loader's limit on postponed refreshes holds in code too.
  cfg.controller.refresh_postpone = kMaxRefreshPostpone + 1;
  CHECK_THROWS_WITH(validate(cfg), Catch::Contains("field 'controller.refresh_postpone': must be <= 7"));
  cfg.controller.refresh_postpone = kMaxRefreshPostpone;
  CHECK_NOTHROW(validate(cfg));
}

TEST_CASE("a memory config may reference a device preset file") {
  const std::string dir = std::string(MXCOSIM_SOURCE_DIR) + "/configs/hbm/";
  const MemoryConfig c = parse_memory_config("device: hbm3.yaml\nmemory:\n  stacks: 2\n", dir + "system.yaml");
  CHECK(c.device.name == "HBM3-6400");
  CHECK(c.stacks == 2);
  CHECK_THROWS_WITH(parse_memory_config("device: nope.yaml\n", dir + "system.yaml"),
                    Catch::Contains("system.yaml:1: field 'device': " + dir + "nope.yaml: cannot open preset"));
}

TEST_CASE("refresh timings that leave requests no time are rejected") {
  const std::string base = preset_text("hbm2.yaml");  // RFC 260, REFI 3900, RC 48, RFCsb 160, REFIsb 243, RREFD 8
  const std::string per_bank =
      replaced(replaced(base, "refresh: all_bank", "refresh: per_bank"), "refresh_postpone: 7", "refresh_postpone: 0");
  // A refresh that falls due may wait 50 cycles for its banks to close: the longer of tRC 48 and a write's
  // CWL 5 + burst 2 + tWR 16 + tRP 14 = 37, plus an activate's 2 cycles on the shared row bus.
  const std::string close_why = "; 50 is the time a refresh may wait for its banks to close, the longer of RC 48 "
                                "and CWL + burst + WR + RP 37, plus ACT_cycles 2 (the other pseudo-channel's "
                                "activate on the row bus)";
  // All-bank: tRFC at most tREFI - 50 - tRC (a request's row cycle after a refresh that came 50 late).
  const std::string big_rfc = replaced(base, "RFC: 260ns", "RFC: 5000ns");
  CHECK_THROWS_WITH(parse_memory_config(big_rfc, "f.yaml"),
                    "f.yaml:" + line_of(big_rfc, "RFC: 5000ns") +
                        ": field 'device.timing.RFC': RFC 5000 + 50 + RC 48 = 5098 cycles must be at most REFI 3900: "
                        "each row opened would be closed by the next refresh before its requests finish" + close_why);
  CHECK_THROWS_WITH(parse_edited(replaced(base, "REFIsb: 243.75ns", "REFIsb: 12"), "REFI: 3900ns", "REFI: 200"),
                    Catch::Contains("field 'device.timing.RFC': RFC 260 + 50 + RC 48 = 358 cycles must be at most "
                                    "REFI 200"));
  CHECK_THROWS_WITH(parse_edited(base, "RFC: 260ns", "RFC: 3803"), Catch::Contains("device.timing.RFC"));
  CHECK_NOTHROW(parse_edited(base, "RFC: 260ns", "RFC: 3802"));
  // A write recovery longer than the interval is the timing named: a refresh due after a write waits for it.
  CHECK_THROWS_WITH(parse_edited(base, "WR: 16", "WR: 4000"),
                    Catch::Contains("field 'device.timing.WR': RFC 260 + 4023 + RC 48 = 4331 cycles must be at most "
                                    "REFI 3900") &&
                        Catch::Contains("CWL + burst + WR + RP 4021"));
  // Per-bank: tREFIsb above tRREFD + tRRD_S and at least tRREFD + 50 (the banks are refreshed one after
  // another, each waiting up to 50 cycles for its bank to close), and a bank free 50 + tRREFD + tRC before
  // its next refresh.
  const std::string short_refisb = replaced(per_bank, "REFIsb: 243.75ns", "REFIsb: 8");
  CHECK_THROWS_WITH(parse_memory_config(short_refisb, "f.yaml"),
                    Catch::StartsWith("f.yaml:" + line_of(short_refisb, "REFIsb: 8") +
                                      ": field 'device.timing.REFIsb': REFIsb 8 cycles must be above RREFD 8 + RRD_S 4"));
  CHECK_THROWS_WITH(parse_edited(per_bank, "REFIsb: 243.75ns", "REFIsb: 12"), Catch::Contains("device.timing.REFIsb"));
  // A write's recovery a little past a row cycle (as on HBM3) is blamed only where the rule would hold
  // without it: here tREFIsb 40 is short of tRREFD + tRC + ACT_cycles = 58 anyway, at 60 only of 61.
  const std::string long_wr = replaced(per_bank, "WR: 16", "WR: 30");  // CWL + burst + WR + RP = 51
  CHECK_THROWS_WITH(parse_edited(long_wr, "REFIsb: 243.75ns", "REFIsb: 40"),
                    Catch::Contains("field 'device.timing.REFIsb': REFIsb 40 cycles must be at least RREFD 8 + 53"));
  CHECK_THROWS_WITH(parse_edited(long_wr, "REFIsb: 243.75ns", "REFIsb: 60"),
                    Catch::Contains("field 'device.timing.WR': REFIsb 60 cycles must be at least RREFD 8 + 53"));
  CHECK_THROWS_WITH(parse_edited(per_bank, "REFIsb: 243.75ns", "REFIsb: 57"),
                    Catch::Contains("field 'device.timing.REFIsb': REFIsb 57 cycles must be at least RREFD 8 + 50 = "
                                    "58: the banks are refreshed one at a time, and each refresh would start later "
                                    "than the last" + close_why));
  const std::string tight =
      replaced(replaced(per_bank, "REFIsb: 243.75ns", "REFIsb: 58"), "RFCsb: 160ns", "RFCsb: 822");
  CHECK_NOTHROW(parse_memory_config(tight, "f.yaml"));
  CHECK_THROWS_WITH(parse_edited(tight, "RFCsb: 822", "RFCsb: 823"),
                    Catch::Contains("field 'device.timing.RFCsb': RFCsb 823 + 50 + RREFD 8 + RC 48 = 929 cycles "
                                    "must be at most 16 banks x REFIsb 58 = 928: each row opened would be closed by "
                                    "the next refresh before its requests finish"));
  CHECK_THROWS_WITH(parse_edited(per_bank, "RFCsb: 160ns", "RFCsb: 3783"),
                    Catch::Contains("field 'device.timing.RFCsb': RFCsb 3783 + 50 + RREFD 8 + RC 48 = 3889 cycles must "
                                    "be at most 16 banks x REFIsb 243 = 3888"));
  CHECK_NOTHROW(parse_edited(per_bank, "RFCsb: 160ns", "RFCsb: 3782"));
  // An activate's command is no longer than tRRD_S (nor its row cycle), whatever the refresh: back to back,
  // one pseudo-channel's would hold the shared row bus.
  CHECK_THROWS_WITH(parse_edited(base, "ACT_cycles: 2", "ACT_cycles: 5"),
                    Catch::Contains("field 'device.timing.ACT_cycles': ACT_cycles 5 is above RRD_S 4"));
  CHECK_THROWS_WITH(
      parse_edited(replaced(replaced(base, "refresh: all_bank", "refresh: none"), "refresh_postpone: 7", ""),
                   "ACT_cycles: 2", "ACT_cycles: 5"),
      Catch::Contains("device.timing.ACT_cycles"));
  CHECK_NOTHROW(parse_edited(base, "ACT_cycles: 2", "ACT_cycles: 4"));
  // A derived tREFIsb (tREFI / banks = 128 / 16) is named, and said to be derived.
  const std::string derived = replaced(replaced(short_refisb, "    REFIsb: 8\n", ""), "REFI: 3900ns", "REFI: 128");
  CHECK_THROWS_WITH(parse_memory_config(derived, "f.yaml"),
                    Catch::Contains("field 'device.timing.REFIsb': REFIsb 8 cycles must be above RREFD 8 + RRD_S 4") &&
                        Catch::Contains("REFIsb not given"));
  // Each rule only for the refresh mode that uses it.
  CHECK_NOTHROW(parse_edited(per_bank, "RFC: 260ns", "RFC: 5000ns"));
  CHECK_NOTHROW(parse_edited(base, "REFIsb: 243.75ns", "REFIsb: 8"));
  CHECK_NOTHROW(parse_edited(replaced(big_rfc, "refresh_postpone: 7", "refresh_postpone: 0"), "refresh: all_bank",
                             "refresh: none"));
  // ... the mode the run uses: a command line's override, not the file's.
  CHECK_NOTHROW(parse_memory_config(big_rfc, "f.yaml", RefreshMode::kNone));
  CHECK_NOTHROW(parse_memory_config(big_rfc, "f.yaml", RefreshMode::kPerBank));
  CHECK_NOTHROW(parse_memory_config(short_refisb, "f.yaml", RefreshMode::kAllBank));
  const std::string all_short = replaced(base, "REFIsb: 243.75ns", "REFIsb: 8");
  CHECK_THROWS_WITH(parse_memory_config(all_short, "f.yaml", RefreshMode::kPerBank),
                    Catch::StartsWith("f.yaml:" + line_of(all_short, "REFIsb: 8") +
                                      ": field 'device.timing.REFIsb': REFIsb 8 cycles must be above") &&
                        Catch::EndsWith("(refresh per_bank, as overridden)"));
  // Configs built in code are checked too.
  MemoryConfig cfg = parse_memory_config(base, "hbm2.yaml");
  cfg.device.t.RFC = cfg.device.t.REFI;
  CHECK_THROWS_WITH(validate(cfg), Catch::Contains("field 'device.timing.RFC': RFC 3900 + 50 + RC 48 = 3998 cycles "
                                                   "must be at most REFI 3900"));
  cfg.controller.refresh = RefreshMode::kPerBank;
  CHECK_NOTHROW(validate(cfg));
  cfg.device.t.REFIsb = cfg.device.t.RREFD;
  CHECK_THROWS_WITH(validate(cfg), Catch::Contains("device.timing.REFIsb"));
  cfg.device.t.REFIsb = 57;
  CHECK_THROWS_WITH(validate(cfg), Catch::Contains("field 'device.timing.REFIsb': REFIsb 57 cycles must be at least"));
  cfg.device.t.REFIsb = 58;
  cfg.device.t.RFCsb = 823;
  CHECK_THROWS_WITH(validate(cfg), Catch::Contains("device.timing.RFCsb"));
  cfg.controller.refresh = RefreshMode::kNone;
  CHECK_NOTHROW(validate(cfg));
}

TEST_CASE("pseudo-channel counts that would build millions of controllers are errors") {
  const std::string base = preset_text("hbm2.yaml");  // 8 channels x 2 pseudo-channels
  CHECK_THROWS_WITH(parse_edited(base, "channels: 8", "channels: 16777216"),
                    Catch::Contains("at most 1024 pseudo-channels a stack") && Catch::Contains("got 33554432"));
  CHECK_NOTHROW(parse_edited(base, "channels: 8", "channels: 512"));
  // 2^30 x 2^30 would wrap to 0 in 32 bits.
  CHECK_THROWS_WITH(parse_memory_config(replaced(replaced(base, "channels: 8", "channels: 1073741824"),
                                                 "pseudo_channels: 2", "pseudo_channels: 1073741824"),
                                        "f.yaml"),
                    Catch::Contains("at most 1024 pseudo-channels a stack"));
  MemoryConfig cfg = parse_memory_config(base, "f.yaml");
  cfg.stacks = kMaxStacks;  // 1024 x 16 = 16384: fine
  CHECK_NOTHROW(validate(cfg));
  cfg.device.org.channels = 64;  // 1024 x 128 = 131072
  CHECK_THROWS_WITH(validate(cfg), Catch::Contains("at most 65536 pseudo-channels in all") &&
                                       Catch::Contains("got 131072"));
}

TEST_CASE("an organisation past the model's limits is an error at its line and field") {
  const std::string base = preset_text("hbm2.yaml");
  const std::string at = "f.yaml:" + line_of(base, "  organisation:") + ": field 'device.organisation': ";
  // Errors found once the whole config is read named the file alone.
  CHECK_THROWS_WITH(parse_edited(base, "channels: 8", "channels: 1024"),
                    at + "at most 1024 pseudo-channels a stack (channels x pseudo_channels), got 2048");
  // With no address_mapping given, the default one not fitting is the organisation's fault:
  // it blamed a controller.address_mapping the file does not have, at the line of "device:".
  const std::string no_mapping = replaced(base, "  address_mapping: \"ro-ba-co:4-ch-pc-bg-co:1\"\n", "");
  const std::string rest_columns = replaced(base, "ro-ba-co:4-ch-pc-bg-co:1", "ro-ba-bg-pc-ch-co");
  CHECK_THROWS_WITH(parse_edited(rest_columns, "columns: 128", "columns: 262144"),
                    at + "at most 65535 banks per pseudo-channel and bursts per row");
  CHECK_THROWS_WITH(parse_edited(no_mapping, "columns: 128", "columns: 64"),
                    at + "the default controller.address_mapping 'ro-ba-co:4-ch-pc-bg-co:1': field 'co' must cover "
                         "exactly 4 bits; give one for this organisation");  // 64 / 4 = 16 bursts a row, not 32
}

TEST_CASE("timings above 2^24 cycles are out of range, not cut to 32 bits") {
  const std::string base = preset_text("hbm2.yaml");
  const std::string huge = replaced(base, "    CL: 14\n", "    CL: 4294967297\n");  // 2^32 + 1 was read as 1
  CHECK_THROWS_WITH(parse_memory_config(huge, "f.yaml"),
                    "f.yaml:" + line_of(huge, "CL: 4294967297") +
                        ": field 'device.timing.CL': out of range: 4294967297 (at most 16777216 cycles)");
  CHECK_THROWS_WITH(parse_edited(base, "    CL: 14\n", "    CL: 16777217\n"),
                    Catch::Contains("field 'device.timing.CL': out of range"));
  // (Without the file's RTW 13: the data of a write after a read needs RTW >= CL + burst - CWL.)
  CHECK(parse_edited(replaced(base, "    RTW: 13\n", ""), "    CL: 14\n", "    CL: 16777216\n").device.t.CL ==
        16777216);
  // Nanoseconds alike, counted in cycles of tCK (1 ns here).
  CHECK_THROWS_WITH(parse_edited(base, "REFI: 3900ns", "REFI: 1e9ns"),
                    Catch::Contains("field 'device.timing.REFI': out of range: '1e9ns' at tCK 1000 ps (at most 16777216 "
                                    "cycles)"));
  CHECK_THROWS_WITH(parse_edited(base, "    CL: 14\n", "    CL: 16777216.5ns\n"),
                    Catch::Contains("field 'device.timing.CL': out of range"));
  CHECK_THROWS_WITH(parse_edited(base, "    CL: 14\n", "    CL: infns\n"),
                    Catch::Contains("field 'device.timing.CL': out of range"));
  CHECK(parse_edited(base, "REFI: 3900ns", "REFI: 16777216ns").device.t.REFI == 16777216);
}

TEST_CASE("watermarks derived from a small write queue name the queue") {
  std::string base = preset_text("hbm2.yaml");
  base = replaced(replaced(base, "  write_high_watermark: 24\n", ""), "  write_low_watermark: 8\n", "");
  CHECK(parse_memory_config(base, "f.yaml").controller.write_high_watermark == 24);
  // write_queue 1 derives high 0 and low 0, neither of which is in the file.
  const std::string tiny = replaced(base, "write_queue: 32", "write_queue: 1");
  CHECK_THROWS_WITH(parse_memory_config(tiny, "f.yaml"),
                    Catch::StartsWith("f.yaml:" + line_of(tiny, "write_queue: 1") + ": field 'controller.write_queue': ") &&
                        Catch::Contains("set write_low_watermark and write_high_watermark explicitly"));
  // One derived, one given: still the queue.
  const std::string low_only = replaced(base, "write_queue: 32", "write_queue: 32\n  write_low_watermark: 30");
  CHECK_THROWS_WITH(parse_memory_config(low_only, "f.yaml"),
                    Catch::Contains("field 'controller.write_queue': watermarks low 30 and high 24 (derived"));
  // Given explicitly, a small queue works, and a bad pair names the watermark.
  const auto with = [&](const char* high, const char* low) {
    return replaced(tiny, "write_queue: 1",
                    std::string("write_queue: 2\n  write_high_watermark: ") + high + "\n  write_low_watermark: " + low);
  };
  CHECK(parse_memory_config(with("2", "1"), "f.yaml").controller.write_queue == 2);
  CHECK_THROWS_WITH(parse_memory_config(with("1", "1"), "f.yaml"),
                    "f.yaml:" + line_of(with("1", "1"), "write_low_watermark: 1") +
                        ": field 'controller.write_low_watermark': must be below write_high_watermark");
  const std::string over = replaced(preset_text("hbm2.yaml"), "write_high_watermark: 24", "write_high_watermark: 40");
  CHECK_THROWS_WITH(parse_memory_config(over, "f.yaml"),
                    "f.yaml:" + line_of(over, "write_high_watermark: 40") +
                        ": field 'controller.write_high_watermark': must not exceed write_queue");
}

TEST_CASE("timings that break JEDEC's own relations are refused at their line") {
  const std::string base = preset_text("hbm2.yaml");  // RAS 34, RP 14, RC 48, CCD 2 / 4, RRD 4 / 4, WTR 6 / 8
  const std::string rc = replaced(base, "RC: 48", "RC: 46");  // 46 + 1 < 34 + 14
  CHECK_THROWS_WITH(parse_memory_config(rc, "f.yaml"),
                    "f.yaml:" + line_of(rc, "RC: 46") +
                        ": field 'device.timing.RC': RC 46 cycles is below RAS 34 + RP 14");
  CHECK_NOTHROW(parse_edited(base, "RC: 48", "RC: 47"));  // one short: a rounding of tRAS or tRP
  const std::string rrd = replaced(base, "RRD_L: 4", "RRD_L: 1");
  CHECK_THROWS_WITH(parse_memory_config(rrd, "f.yaml"),
                    "f.yaml:" + line_of(rrd, "RRD_L: 1") +
                        ": field 'device.timing.RRD_L': RRD_L 1 cycles is below RRD_S 4");
  CHECK_THROWS_WITH(parse_edited(base, "CCD_L: 4", "CCD_L: 1"), Catch::Contains("CCD_L 1 cycles is below CCD_S 2"));
  CHECK_THROWS_WITH(parse_edited(base, "WTR_L: 8", "WTR_L: 5"), Catch::Contains("WTR_L 5 cycles is below WTR_S 6"));
  CHECK_THROWS_WITH(parse_edited(base, "CL: 14", "CL: 0"),
                    Catch::Contains("field 'device.timing.CL': must be at least 1"));
  // A write's data after a read's: RTW >= CL 14 + burst 2 - CWL 5 = 11.
  const std::string rtw = replaced(base, "RTW: 13", "RTW: 10");
  CHECK_THROWS_WITH(parse_memory_config(rtw, "f.yaml"),
                    "f.yaml:" + line_of(rtw, "RTW: 10") +
                        ": field 'device.timing.RTW': RTW 10 cycles is below CL 14 + burst 2 - CWL 5: a write's data "
                        "would overlap the data of the read before it");
  CHECK_NOTHROW(parse_edited(base, "RTW: 13", "RTW: 11"));
  // Per-bank refresh must visit each bank once per tREFI (3900): 16 x 244 = 3904.
  const std::string refisb = replaced(base, "REFIsb: 243.75ns", "REFIsb: 244");
  CHECK_THROWS_WITH(parse_memory_config(refisb, "f.yaml"),
                    "f.yaml:" + line_of(refisb, "REFIsb: 244") +
                        ": field 'device.timing.REFIsb': REFIsb 244 cycles x 16 banks is above REFI 3900: per-bank "
                        "refresh would visit each bank less than once per tREFI");
  CHECK_NOTHROW(parse_edited(base, "REFIsb: 243.75ns", "REFIsb: 243"));
  // Both in configs built in code too.
  MemoryConfig cfg = parse_memory_config(base, "hbm2.yaml");
  cfg.device.t.REFIsb = 3900;
  CHECK_THROWS_WITH(validate(cfg), Catch::StartsWith("field 'device.timing.REFIsb': REFIsb 3900 cycles x 16 banks"));
  cfg = parse_memory_config(base, "hbm2.yaml");
  cfg.device.t.RTW = 1;
  CHECK_THROWS_WITH(validate(cfg), Catch::StartsWith("field 'device.timing.RTW': RTW 1 cycles is below"));
}

TEST_CASE("a stack interleave that does not divide a stack is refused: it would fold addresses onto others") {
  // An HBM2 stack holds 4 GiB. Blocks of 8 GiB over 2 stacks put every address on stack 0, the upper
  // half folded onto the lower; blocks of 96 B left stack 1's last bytes unused and folded the top
  // addresses onto address 0.
  const std::string two = replaced(preset_text("hbm2.yaml"), "stacks: 1", "stacks: 2");
  for (const char* block : {"8589934592", "96", "3072"}) {
    INFO(block);
    const std::string field = std::string("stack_interleave_bytes: ") + block;
    const std::string text = replaced(two, "stack_interleave_bytes: 4096", field);
    CHECK_THROWS_WITH(parse_memory_config(text, "f.yaml"),
                      "f.yaml:" + line_of(text, field) +
                          ": field 'memory.stack_interleave_bytes': " + block +
                          " must divide a stack's 4294967296 bytes (with 2 stacks, blocks rotate over them and each "
                          "stack holds whole blocks)");
  }
  CHECK_NOTHROW(parse_edited(two, "stack_interleave_bytes: 4096", "stack_interleave_bytes: 4294967296"));
  // One stack has nothing to rotate over; in code, a stack count set later is checked too.
  MemoryConfig one = parse_edited(preset_text("hbm2.yaml"), "stack_interleave_bytes: 4096",
                                  "stack_interleave_bytes: 8589934592");
  CHECK_NOTHROW(validate(one));
  one.stacks = 2;
  CHECK_THROWS_WITH(validate(one), Catch::StartsWith("field 'memory.stack_interleave_bytes': 8589934592 must divide"));
}

TEST_CASE("an organisation's counts are powers of two, refused at their own line") {
  // They were refused at controller.address_mapping, and bus_bits 48 at
  // memory.stack_interleave_bytes ("multiple of 24").
  const std::string base = preset_text("hbm2.yaml");
  for (const auto& [from, to, what] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"channels: 8", "channels: 6", "channels must be a power of two (the address mapping takes whole bits), "
                                          "got 6"},
           {"pseudo_channels: 2", "pseudo_channels: 3", "pseudo_channels must be a power of two"},
           {"bank_groups: 4", "bank_groups: 3", "bank_groups must be a power of two"},
           {"banks_per_group: 4", "banks_per_group: 5", "banks_per_group must be a power of two"},
           {"rows: 16384", "rows: 1000", "rows must be a power of two (the address mapping takes whole bits), got "
                                         "1000"},
           {"columns: 128", "columns: 96", "columns / burst_length (bursts per row) must be a power of two"},
           {"bus_bits: 64", "bus_bits: 48", "bus_bits / 8 x burst_length (the burst's bytes) must be a power of two"},
       }) {
    INFO(to);
    const std::string text = replaced(base, from, to);
    const std::string field = to.substr(0, to.find(':'));
    CHECK_THROWS_WITH(parse_memory_config(text, "f.yaml"),
                      Catch::StartsWith("f.yaml:" + line_of(text, to) + ": field 'device.organisation." + field +
                                        "': " + what));
  }
}

TEST_CASE("a number too large and a unit in capitals say so") {
  const std::string base = preset_text("hbm2.yaml");
  CHECK_THROWS_WITH(parse_edited(base, "read_queue: 32", "read_queue: 99999999999999999999"),
                    Catch::Contains("field 'controller.read_queue': 99999999999999999999 is too large (at most "
                                    "18446744073709551615)"));
  CHECK_THROWS_WITH(parse_edited(base, "CL: 14", "CL: 14NS"),
                    Catch::Contains("field 'device.timing.CL': '14NS': nanoseconds are written with a lowercase unit"));
  CHECK(parse_edited(base, "CL: 14", "CL: 14ns").device.t.CL == 14);  // tCK 1 ns
  // Other units are named as not read, not reported as a bad integer.
  for (const char* v : {"0.26us", "14000ps", "14cycles"})
    CHECK_THROWS_WITH(parse_edited(base, "CL: 14", std::string("CL: ") + v),
                      Catch::Contains(std::string("field 'device.timing.CL': '") + v +
                                      "': a timing is a number of cycles or of nanoseconds") &&
                          Catch::Contains("other units are not read"));
}

TEST_CASE("a key given twice is an error at its second line") {
  const std::string base = preset_text("hbm2.yaml");
  const std::string queue = replaced(base, "read_queue: 32", "read_queue: 64\n  read_queue: 1");
  CHECK_THROWS_WITH(parse_memory_config(queue, "f.yaml"),
                    "f.yaml:" + line_of(queue, "read_queue: 1") + ": field 'controller.read_queue': duplicate key " +
                        "(first given on line " + line_of(queue, "read_queue: 64") + ")");
  // Every mapping: the top level, device, organisation, timing, memory.
  CHECK_THROWS_WITH(parse_memory_config(base + "check_timing: true\ncheck_timing: false\n", "f.yaml"),
                    Catch::Contains(": field 'check_timing': duplicate key"));
  CHECK_THROWS_WITH(parse_edited(base, "  name: HBM2-2000\n", "  name: a\n  name: b\n"),
                    Catch::Contains("field 'device.name': duplicate key"));
  CHECK_THROWS_WITH(parse_memory_config(replaced(base, "    rows: 16384\n", "    rows: 16384\n    rows: 32768\n"),
                                        "f.yaml"),
                    Catch::Contains("field 'device.organisation.rows': duplicate key"));
  CHECK_THROWS_WITH(parse_edited(base, "    CL: 14\n", "    CL: 14\n    CL: 15\n"),
                    Catch::Contains("field 'device.timing.CL': duplicate key"));
  CHECK_THROWS_WITH(parse_edited(base, "stacks: 1", "stacks: 1\n  stacks: 2"),
                    Catch::Contains("field 'memory.stacks': duplicate key"));
  // And the top level of a referenced preset, of which only `device` is read.
  const mxc::testing::TempDir tmp;
  const auto& dir = tmp.path();
  const std::string device = base.substr(base.find("device:"), base.find("memory:") - base.find("device:"));
  std::ofstream((dir / "twice.yaml").string()) << device << device;
  const auto second = std::count(device.begin(), device.end(), '\n') + 1;
  CHECK_THROWS_WITH(parse_memory_config("device: twice.yaml\n", (dir / "system.yaml").string()),
                    Catch::EndsWith("twice.yaml:" + std::to_string(second) + ": field 'device': duplicate key (first " +
                                    "given on line 1)"));
}

TEST_CASE("an address-mapping bit count is digits only") {
  const std::string base = preset_text("hbm2.yaml");
  const std::string bad = replaced(base, "co:4-ch", "co:4x-ch");  // std::stoi read this as co:4
  const std::string at = "f.yaml:" + line_of(bad, "address_mapping:") + ": field 'controller.address_mapping': ";
  CHECK_THROWS_WITH(parse_memory_config(bad, "f.yaml"), Catch::StartsWith(at) && Catch::Contains("'co:4x'"));
  MemoryConfig cfg = parse_memory_config(base, "hbm2.yaml");
  cfg.controller.address_mapping = "ro-ba-co:4x-ch-pc-bg-co:1";
  CHECK_THROWS_WITH(validate(cfg),
                    Catch::StartsWith("field 'controller.address_mapping': ") && Catch::Contains("'co:4x'"));
}

TEST_CASE("values that would overflow the model's arithmetic are errors naming their field") {
  const std::string base = preset_text("hbm2.yaml");
  // Beats per clock above the burst length (it must divide it): before the
  // check, the count was cut to 32 bits, became 0 and divided.
  CHECK_THROWS_WITH(parse_edited(base, "data_rate_gbps: 2.0", "data_rate_gbps: 1e30"),
                    Catch::Contains("field 'device.timing.tCK_ps': data_rate_gbps x tCK"));
  // A burst of 4 B x 2^30 wrapped to 0 bytes in 32 bits.
  const std::string huge_burst =
      replaced(replaced(base, "burst_length: 4", "burst_length: 1073741824"), "columns: 128", "columns: 1073741824");
  CHECK_THROWS_WITH(parse_memory_config(huge_burst, "f.yaml"),
                    Catch::Contains("field 'device.organisation.burst_length': bus_bits / 8 x burst_length"));
  // A 10^16 ps clock put a run's picosecond times past 64 bits.
  CHECK_THROWS_WITH(parse_edited(base, "tCK_ps: 1000", "tCK_ps: 10000000000000000"),
                    Catch::Contains("field 'device.timing.tCK_ps': must be at most 1000000"));
  MemoryConfig cfg = parse_memory_config(base, "hbm2.yaml");
  cfg.device.org.burst_length = 0;  // built in code: no division by zero either
  CHECK_THROWS_WITH(validate(cfg), Catch::Contains("a burst (bus_bits / 8 x burst_length) must be 1 to 4096"));
  cfg = parse_memory_config(base, "hbm2.yaml");
  cfg.device.org.rows = 1u << 30;
  cfg.device.org.columns = 4 * 16384;  // 2^57 bytes a stack
  cfg.stacks = 16;
  CHECK_THROWS_WITH(validate(cfg), Catch::Contains("more than 2^60 bytes"));
}

TEST_CASE("a config is one YAML document of plain keys, and a directory is not a config") {
  const std::string base = preset_text("hbm2.yaml");
  // Fields after a second document were ignored without a word.
  const std::string two = base + "---\nmemory:\n  stacks: 2\n";
  CHECK_THROWS_WITH(parse_memory_config(two, "f.yaml"),
                    "f.yaml:" + std::to_string(std::stoi(line_of(two, "---\nmemory")) + 1) +  // its first field's line
                        ": a second YAML document ('---'): a config file holds one");
  CHECK_NOTHROW(parse_memory_config(base + "---\n", "f.yaml"));  // an empty one after it is harmless
  // A complex key threw yaml-cpp's "bad conversion" with no file.
  CHECK_THROWS_WITH(parse_memory_config(base + "? [a]\n: 1\n", "f.yaml"),
                    Catch::Contains(": field '(top level)': a key must be a plain name"));
  const mxc::testing::TempDir tmp;
  const auto& dir = tmp.path();
  std::filesystem::create_directories(dir / "preset");
  CHECK_THROWS_WITH(parse_memory_config("device: preset\n", (dir / "system.yaml").string()),
                    Catch::Contains("system.yaml:1: field 'device': ") && Catch::EndsWith("preset: cannot open preset: it is a directory"));
  CHECK_THROWS_WITH(load_memory_config((dir / "preset").string()), Catch::EndsWith("it is a directory"));
}
