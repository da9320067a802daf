#include "models/hbm/config_loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "models/core/config_field_error.h"
#include "models/core/yaml_reader.h"
#include "models/hbm/address_mapper.h"

namespace mxc::hbm {

namespace {

std::string join(const std::string& where, const std::string& key) { return where.empty() ? key : where + "." + key; }

// Any timing above this is a typo, and it keeps sums of a few timings far
// from the 32 bits they are stored in.
constexpr std::uint64_t kMaxCycles = std::uint64_t{1} << 24;
// A burst of more bytes, or a clock slower than 1 MHz, is a typo; the
// bounds keep a burst's size in 32 bits and a run's times in picoseconds
// far from 64 bits (latency sums included).
constexpr std::uint64_t kMaxBurstBytes = 4096;
constexpr std::uint64_t kMaxTckPs = 1000000;

/// A refresh timing that breaks a rule: the field (under device.timing) and
/// what is wrong with it.
struct RuleBreak {
  const char* field;
  std::string what;
};

/// The longest a refresh that fell due may wait for its banks to close: a
/// row just opened stays open tRAS and then takes tRP (a row cycle), a
/// write just issued holds its bank CWL + burst + tWR and then tRP, and the
/// precharge may wait for the other pseudo-channel's activate on the shared
/// row bus.
std::uint64_t refresh_close_cycles(const HbmTiming& t) {
  return std::max<std::uint64_t>(t.RC, std::uint64_t{t.CWL} + t.burst_cycles + t.WR + t.RP) + t.ACT_cycles;
}

/// Refresh timings that leave requests no time between refreshes, so a run
/// never finishes, or that let refresh fall behind. Between a refresh's
/// tRFC (tRFCsb) and the next one falling due, a request must fit: the last
/// refresh may have issued late by its wait for the banks to close (which
/// eats into the window), a per-bank one bars activates for tRREFD after
/// it, and the row then needs its row cycle, or tRCD to its column command
/// if that is longer; in less, the next refresh closes each row opened
/// before its column command. The controller refreshes one bank at a time,
/// in turn: a per-bank interval shorter than tRREFD and that wait lets each
/// refresh start later than the last, and the banks go unrefreshed. Only
/// the timings of `mode` are checked.
std::optional<RuleBreak> refresh_rule_broken(const HbmTiming& t, RefreshMode mode, std::uint32_t banks) {
  if (mode == RefreshMode::kNone) return std::nullopt;
  const auto n = [](std::uint64_t v) { return std::to_string(v); };
  const std::uint64_t close = refresh_close_cycles(t);
  const std::uint64_t write_close = std::uint64_t{t.CWL} + t.burst_cycles + t.WR + t.RP;
  // Said after the rule: what makes up the closing time.
  const std::string close_why = "; " + n(close) + " is the time a refresh may wait for its banks to close, the "
                                "longer of RC " + n(t.RC) + " and CWL + burst + WR + RP " + n(write_close) +
                                ", plus ACT_cycles " + n(t.ACT_cycles) +
                                " (the other pseudo-channel's activate on the row bus)";
  const bool per_bank = mode == RefreshMode::kPerBank;
  if (per_bank && t.REFIsb <= std::uint64_t{t.RREFD} + t.RRD_S)
    return RuleBreak{"REFIsb", "REFIsb " + n(t.REFIsb) + " cycles must be above RREFD " + n(t.RREFD) + " + RRD_S " +
                                   n(t.RRD_S) + " (per-bank refresh would leave activates no time between refreshes)"};
  // The field at fault: one without whose excess over a row cycle the rule would hold (a tRCD, or a
  // write's recovery: a refresh waiting a row cycle alone), else the refresh's own.
  const bool write = t.RCDWR > t.RCDRD;
  const std::uint64_t rcd = write ? t.RCDWR : t.RCDRD;
  const std::uint64_t close_rc = std::uint64_t{t.RC} + t.ACT_cycles;  // the wait without the write's part
  if (per_bank && t.REFIsb < close + t.RREFD)
    return RuleBreak{t.REFIsb >= close_rc + t.RREFD ? "WR" : "REFIsb",
                     "REFIsb " + n(t.REFIsb) + " cycles must be at least RREFD " + n(t.RREFD) + " + " + n(close) +
                         " = " + n(close + t.RREFD) + ": the banks are refreshed one at a time, and each refresh "
                         "would start later than the last" + close_why};
  const std::uint64_t period = per_bank ? std::uint64_t{banks} * t.REFIsb : t.REFI;
  const std::uint64_t busy = per_bank ? t.RFCsb : t.RFC;
  const std::uint64_t row = std::max<std::uint64_t>(t.RC, rcd);
  const std::uint64_t extra = per_bank ? t.RREFD : 0;  // no activate for tRREFD after a per-bank refresh
  const std::uint64_t need = busy + close + extra + row;
  if (need <= period) return std::nullopt;
  const char* odd = busy + close + extra + t.RC <= period   ? (write ? "RCDWR" : "RCDRD")
                    : busy + close_rc + extra + row <= period ? "WR"
                                                               : nullptr;
  const std::string row_text = rcd > t.RC ? std::string(write ? "RCDWR " : "RCDRD ") + n(rcd) : "RC " + n(t.RC);
  return RuleBreak{odd ? odd : per_bank ? "RFCsb" : "RFC",
                   (per_bank ? "RFCsb " : "RFC ") + n(busy) + " + " + n(close) +
                       (per_bank ? " + RREFD " + n(t.RREFD) : "") + " + " + row_text + " = " + n(need) +
                       " cycles must be at most " +
                       (per_bank ? n(banks) + " banks x REFIsb " + n(t.REFIsb) + " = " + n(period)
                                 : "REFI " + n(t.REFI)) +
                       ": each row opened would be closed by the next refresh before its " +
                       (rcd > t.RC ? (write ? "write" : "read") : "requests finish") + close_why};
}

/// Timings of any refresh mode that no device has: a write's data meeting
/// the data of the read before it (it comes CWL after the write's command,
/// the read's ends CL + burst after its own), an activate's command longer
/// than tRRD_S or its row cycle, and a per-bank refresh round
/// (banks x tREFIsb) longer than tREFI, which refreshes each bank less often
/// than its cells need.
std::optional<RuleBreak> data_or_refresh_rule_broken(const HbmTiming& t, std::uint32_t banks) {
  const auto n = [](std::uint64_t v) { return std::to_string(v); };
  if (std::uint64_t{t.RTW} + t.CWL < std::uint64_t{t.CL} + t.burst_cycles)
    return RuleBreak{"RTW", "RTW " + n(t.RTW) + " cycles is below CL " + n(t.CL) + " + burst " + n(t.burst_cycles) +
                                " - CWL " + n(t.CWL) + ": a write's data would overlap the data of the read before it"};
  if (t.ACT_cycles > t.RRD_S || t.ACT_cycles > t.RC)
    return RuleBreak{"ACT_cycles", "ACT_cycles " + n(t.ACT_cycles) + " is above " +
                                       (t.ACT_cycles > t.RRD_S ? "RRD_S " + n(t.RRD_S) : "RC " + n(t.RC)) +
                                       ": one pseudo-channel's activates, back to back, would hold the channel's "
                                       "row bus and starve the other's refreshes (no device's activate outlasts "
                                       "tRRD_S or its row cycle)"};
  if (std::uint64_t{t.REFIsb} * banks > t.REFI)
    return RuleBreak{"REFIsb", "REFIsb " + n(t.REFIsb) + " cycles x " + n(banks) + " banks is above REFI " +
                                   n(t.REFI) + ": per-bank refresh would visit each bank less than once per tREFI"};
  return std::nullopt;
}

/// Why the stack interleave would fold addresses inside the capacity onto
/// others, if it would: blocks rotate over the stacks and each stack's
/// share is its blocks laid end to end, which fills the stack exactly only
/// when a whole number of blocks does (a block larger than a stack left the
/// other stacks idle and aliased the top half of the memory onto the
/// bottom one's).
std::optional<std::string> interleave_misfit(const MemoryConfig& cfg) {
  const std::uint64_t stack = cfg.device.org.stack_bytes(), block = cfg.stack_interleave_bytes;
  if (cfg.stacks < 2 || block == 0 || stack % block == 0) return std::nullopt;
  return std::to_string(block) + " must divide a stack's " + std::to_string(stack) + " bytes (with " +
         std::to_string(cfg.stacks) + " stacks, blocks rotate over them and each stack holds whole blocks)";
}

/// Every loader's YamlReader ("file:line: field 'f': why") with this
/// config's own field forms: looked up in a mapping, with a default when
/// absent; positive integers that say what they got; timings in cycles or
/// nanoseconds.
class Reader {
 public:
  explicit Reader(std::string file) : m_yaml(std::move(file)) {}

  YAML::Node load(const std::string& text) const { return m_yaml.load(text); }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& field, const std::string& what) const {
    m_yaml.fail(n, field, what);
  }
  /// At the line of dotted `field` below `root`, or of its nearest ancestor the file gives.
  [[noreturn]] void fail_at_field(const YAML::Node& root, const std::string& field, const std::string& what) const {
    m_yaml.fail_at_field(root, field, what);
  }
  /// Rejects a key given twice (the only check on a preset file's root,
  /// of which only the device is read).
  void unique_keys(const YAML::Node& map, const std::string& where) const { m_yaml.unique_keys(map, where); }
  /// Rejects anything but a mapping of keys in `known`, each given once.
  void only(const YAML::Node& map, const std::string& where, const std::set<std::string>& known) const {
    m_yaml.keys(map, where, known);
  }

  std::uint64_t uint(const YAML::Node& map, const std::string& where, const char* key, std::uint64_t def,
                     bool positive = true) const {
    const YAML::Node n = map[key];
    if (!n) return def;
    const std::string field = join(where, key);
    std::uint64_t v = 0;
    try {
      if (!n.IsScalar() || n.Scalar().empty() || n.Scalar()[0] == '-') throw YAML::Exception(n.Mark(), "");
      v = n.as<std::uint64_t>();
    } catch (const YAML::Exception&) {
      const std::string& t = n.IsScalar() ? n.Scalar() : std::string();
      if (!t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
        fail(n, field, t + " is too large (at most " + std::to_string(~std::uint64_t{0}) + ")");
      fail(n, field, std::string("expected a ") + (positive ? "positive" : "non-negative") + " integer, got '" +
                         (n.IsScalar() ? n.Scalar() : std::string("<not a scalar>")) + "'");
    }
    if (positive && v == 0) fail(n, field, "must be > 0");
    return v;
  }

  double real(const YAML::Node& map, const std::string& where, const char* key, double def) const {
    const YAML::Node n = map[key];
    if (!n) return def;
    try {
      const double v = n.as<double>();
      if (!(v > 0) || !std::isfinite(v)) throw YAML::Exception(n.Mark(), "");
      return v;
    } catch (const YAML::Exception&) {
      fail(n, join(where, key), "expected a positive number");
    }
  }

  std::string str(const YAML::Node& map, const std::string& where, const char* key, const std::string& def) const {
    const YAML::Node n = map[key];
    return n ? m_yaml.string(n, join(where, key)) : def;
  }

  bool boolean(const YAML::Node& map, const std::string& where, const char* key, bool def) const {
    const YAML::Node n = map[key];
    return n ? m_yaml.boolean(n, join(where, key)) : def;
  }

  /// A timing in cycles: an integer, or "<x>ns" rounded up to whole tCK; at
  /// most kMaxCycles (a larger value would otherwise be cut to 32 bits).
  std::uint32_t cycles(const YAML::Node& map, const std::string& where, const char* key, Time tck_ps,
                       bool required, std::uint32_t def = 0, bool round_down = false) const {
    const YAML::Node n = map[key];
    const std::string field = join(where, key);
    if (!n) {
      if (required) fail(map, field, "missing");
      return def;
    }
    if (!n.IsScalar()) fail(n, field, "expected cycles (integer) or nanoseconds (\"12.5ns\")");
    const std::string limit = " (at most " + std::to_string(kMaxCycles) + " cycles)";
    const std::string s = n.Scalar();
    if (s.size() > 2 && s.substr(s.size() - 2) == "ns") {
      double ns = 0;
      try {
        std::size_t used = 0;
        ns = std::stod(s.substr(0, s.size() - 2), &used);
        if (used != s.size() - 2) throw std::invalid_argument("");
      } catch (const std::exception&) {
        fail(n, field, "bad nanosecond value '" + s + "'");
      }
      if (!(ns >= 0)) fail(n, field, "out of range: '" + s + "'");
      // JEDEC rounding: nCK = ceil(t / tCK), with a small guard against
      // floating-point noise on exact multiples.
      // Refresh intervals are maxima and round down instead.
      const double n_ck = ns * 1000.0 / static_cast<double>(tck_ps);
      const double v = round_down ? std::floor(n_ck + 1e-6) : std::ceil(n_ck - 1e-6);
      if (!(v <= static_cast<double>(kMaxCycles)))  // also catches "infns"
        fail(n, field, "out of range: '" + s + "' at tCK " + std::to_string(tck_ps) + " ps" + limit);
      return static_cast<std::uint32_t>(v);
    }
    if (s.size() > 2 && (s.back() == 'S' || s.back() == 's') && (s[s.size() - 2] == 'N' || s[s.size() - 2] == 'n'))
      fail(n, field, "'" + s + "': nanoseconds are written with a lowercase unit, e.g. \"14ns\"");
    // A number with another unit ("260us", "5ps"): say which units are read.
    if (s.size() > 1 && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '.') &&
        std::isalpha(static_cast<unsigned char>(s.back())))
      fail(n, field,
           "'" + s + "': a timing is a number of cycles or of nanoseconds written \"<x>ns\" (e.g. \"14ns\"); " +
               "other units are not read");
    const std::uint64_t v = uint(map, where, key, def, false);
    if (v > kMaxCycles) fail(n, field, "out of range: " + s + limit);
    return static_cast<std::uint32_t>(v);
  }

  const std::string& file() const { return m_yaml.origin(); }

 private:
  YamlReader m_yaml;
};

HbmDeviceSpec parse_device(const Reader& r, const YAML::Node& d) {
  r.only(d, "device", {"name", "standard", "source", "data_rate_gbps", "organisation", "timing"});
  HbmDeviceSpec s;
  s.name = r.str(d, "device", "name", "unnamed");
  s.standard = r.str(d, "device", "standard", "");
  s.source = r.str(d, "device", "source", "");
  s.data_rate_gbps = r.real(d, "device", "data_rate_gbps", 0);
  if (s.data_rate_gbps == 0) r.fail(d, "device.data_rate_gbps", "missing");

  const YAML::Node o = d["organisation"];
  if (!o) r.fail(d, "device.organisation", "missing");
  const std::string ow = "device.organisation";
  r.only(o, ow, {"channels", "pseudo_channels", "bank_groups", "banks_per_group", "rows", "columns", "bus_bits",
                 "burst_length"});
  auto u32 = [&](const char* k, std::uint32_t def) {
    const std::uint64_t v = r.uint(o, ow, k, def);
    if (v > (1u << 30)) r.fail(o[k], ow + "." + k, "too large");
    return static_cast<std::uint32_t>(v);
  };
  s.org.channels = u32("channels", 0);
  s.org.pseudo_channels = u32("pseudo_channels", 1);
  s.org.bank_groups = u32("bank_groups", 0);
  s.org.banks_per_group = u32("banks_per_group", 0);
  s.org.rows = u32("rows", 0);
  s.org.columns = u32("columns", 0);
  s.org.bus_bits = u32("bus_bits", 0);
  s.org.burst_length = u32("burst_length", 0);
  for (const char* k : {"channels", "bank_groups", "banks_per_group", "rows", "columns", "bus_bits", "burst_length"})
    if (!o[k]) r.fail(o, ow + "." + k, "missing");
  if (s.org.bus_bits % 8 != 0) r.fail(o["bus_bits"], ow + ".bus_bits", "must be a multiple of 8");
  if (std::uint64_t{s.org.bus_bits / 8} * s.org.burst_length > kMaxBurstBytes)
    r.fail(o["burst_length"], ow + ".burst_length",
           "bus_bits / 8 x burst_length is the burst's bytes, at most " + std::to_string(kMaxBurstBytes));
  if (s.org.columns % s.org.burst_length != 0)
    r.fail(o["columns"], ow + ".columns", "must be a multiple of burst_length");
  // The address mapping gives each field whole bits of the address.
  const auto power_of_two = [&](const char* k, std::uint64_t v, const std::string& what) {
    if (!std::has_single_bit(v))
      r.fail(o[k], ow + "." + k, what + " must be a power of two (the address mapping takes whole bits), got " +
                                     std::to_string(v));
  };
  power_of_two("channels", s.org.channels, "channels");
  power_of_two("pseudo_channels", s.org.pseudo_channels, "pseudo_channels");
  power_of_two("bank_groups", s.org.bank_groups, "bank_groups");
  power_of_two("banks_per_group", s.org.banks_per_group, "banks_per_group");
  power_of_two("rows", s.org.rows, "rows");
  power_of_two("columns", s.org.columns / s.org.burst_length, "columns / burst_length (bursts per row)");
  power_of_two("bus_bits", std::uint64_t{s.org.bus_bits / 8} * s.org.burst_length,
               "bus_bits / 8 x burst_length (the burst's bytes)");

  const YAML::Node t = d["timing"];
  if (!t) r.fail(d, "device.timing", "missing");
  const std::string tw = "device.timing";
  r.only(t, tw, {"tCK_ps", "CL", "CWL", "RCDRD", "RCDWR", "RP", "RAS", "RC", "WR", "RTP", "CCD_S", "CCD_L", "RRD_S",
                 "RRD_L", "FAW", "WTR_S", "WTR_L", "RTW", "RFC", "RFCsb", "REFI", "REFIsb", "RREFD", "PPD",
                 "ACT_cycles"});
  HbmTiming& x = s.t;
  x.tCK_ps = r.uint(t, tw, "tCK_ps", 0);
  if (x.tCK_ps == 0) r.fail(t, tw + ".tCK_ps", "missing");
  // Cycle counts then stay below 2^60 over the whole picosecond time range
  // (BankState packs a cycle and 3 bits in one word).
  if (x.tCK_ps < 16) r.fail(t["tCK_ps"], tw + ".tCK_ps", "must be at least 16 (a clock of at most 62.5 GHz)");
  if (x.tCK_ps > kMaxTckPs) r.fail(t["tCK_ps"], tw + ".tCK_ps", "must be at most 1000000 (a clock of at least 1 MHz)");
  const Time ck = x.tCK_ps;
  x.CL = r.cycles(t, tw, "CL", ck, true);
  x.CWL = r.cycles(t, tw, "CWL", ck, true);
  x.RCDRD = r.cycles(t, tw, "RCDRD", ck, true);
  x.RCDWR = r.cycles(t, tw, "RCDWR", ck, true);
  x.RP = r.cycles(t, tw, "RP", ck, true);
  x.RAS = r.cycles(t, tw, "RAS", ck, true);
  x.RC = r.cycles(t, tw, "RC", ck, true);
  x.WR = r.cycles(t, tw, "WR", ck, true);
  x.RTP = r.cycles(t, tw, "RTP", ck, true);
  x.CCD_S = r.cycles(t, tw, "CCD_S", ck, true);
  x.CCD_L = r.cycles(t, tw, "CCD_L", ck, true);
  x.RRD_S = r.cycles(t, tw, "RRD_S", ck, true);
  x.RRD_L = r.cycles(t, tw, "RRD_L", ck, true);
  x.FAW = r.cycles(t, tw, "FAW", ck, true);
  x.WTR_S = r.cycles(t, tw, "WTR_S", ck, true);
  x.WTR_L = r.cycles(t, tw, "WTR_L", ck, true);
  x.RFC = r.cycles(t, tw, "RFC", ck, true);
  x.RFCsb = r.cycles(t, tw, "RFCsb", ck, true);
  x.REFI = r.cycles(t, tw, "REFI", ck, true, 0, true);
  if (x.REFI == 0) r.fail(t["REFI"], tw + ".REFI", "must be > 0");

  // Data beats per clock: 2 for HBM2/2E (DDR), 4 for HBM3's data clock.
  const double beats = s.data_rate_gbps * static_cast<double>(ck) / 1000.0;
  const double rounded = std::round(beats);
  // At most burst_length beats a clock (they must divide it), checked
  // before the count is cut to 32 bits.
  if (rounded < 1 || rounded > s.org.burst_length || std::fabs(beats - rounded) > 0.01 * rounded ||
      s.org.burst_length % static_cast<std::uint32_t>(rounded) != 0)
    r.fail(t["tCK_ps"], tw + ".tCK_ps",
           "data_rate_gbps x tCK must be a whole number of beats per clock dividing burst_length (got " +
               std::to_string(beats) + ")");
  x.burst_cycles = s.org.burst_length / static_cast<std::uint32_t>(rounded);
  x.RTW = r.cycles(t, tw, "RTW", ck, false, x.CL + x.burst_cycles + 2 > x.CWL ? x.CL + x.burst_cycles + 2 - x.CWL : 1);
  x.REFIsb = r.cycles(t, tw, "REFIsb", ck, false, x.REFI / s.org.banks(), true);
  // tRREFD: 8 ns on HBM2 and HBM3 (JESD235D, JESD238; 8 at tCK 1 ns in
  // Ramulator's HBM2 speed table), rounded up to cycles as any time is.
  x.RREFD = r.cycles(t, tw, "RREFD", ck, false, static_cast<std::uint32_t>((8000 + ck - 1) / ck));
  if (x.REFIsb == 0) r.fail(t["REFIsb"] ? t["REFIsb"] : t, tw + ".REFIsb", "must be > 0");
  // tPPD, precharge to precharge: HBM3's (JESD238); HBM2's standard has no
  // such rule, and 0, the default, is none.
  x.PPD = r.cycles(t, tw, "PPD", ck, false, 0);
  // A count of command-bus cycles, not a time: no "ns" form.
  const std::uint64_t act = r.uint(t, tw, "ACT_cycles", 2, true);
  if (act > kMaxCycles)
    r.fail(t["ACT_cycles"], tw + ".ACT_cycles", "too large (at most " + std::to_string(kMaxCycles) + ")");
  x.ACT_cycles = static_cast<std::uint32_t>(act);
  // Relations every JEDEC timing set keeps; one broken is a typo that
  // would otherwise run, with results no device gives. tRC is tRAS + tRP
  // (less one cycle for each rounded up to whole clocks); the same-group
  // (_L) spacings are at least the other-group (_S) ones.
  const auto n = [](std::uint32_t v) { return std::to_string(v); };
  if (x.CL == 0) r.fail(t["CL"], tw + ".CL", "must be at least 1 cycle");
  if (x.CCD_S == 0) r.fail(t["CCD_S"], tw + ".CCD_S", "must be at least 1 cycle");
  if (std::uint64_t{x.RC} + 1 < std::uint64_t{x.RAS} + x.RP)
    r.fail(t["RC"], tw + ".RC", "RC " + n(x.RC) + " cycles is below RAS " + n(x.RAS) + " + RP " + n(x.RP));
  const auto at_least = [&](const char* l, std::uint32_t lv, const char* sh, std::uint32_t sv) {
    if (lv < sv) r.fail(t[l], tw + "." + l, std::string(l) + " " + n(lv) + " cycles is below " + sh + " " + n(sv));
  };
  at_least("CCD_L", x.CCD_L, "CCD_S", x.CCD_S);
  at_least("RRD_L", x.RRD_L, "RRD_S", x.RRD_S);
  at_least("WTR_L", x.WTR_L, "WTR_S", x.WTR_S);
  if (const auto broken = data_or_refresh_rule_broken(x, s.org.banks()))
    r.fail(t[broken->field] ? t[broken->field] : t, tw + "." + broken->field, broken->what);
  return s;
}

ControllerConfig parse_controller(const Reader& r, const YAML::Node& c) {
  ControllerConfig k;
  if (!c) return k;
  const std::string w = "controller";
  r.only(c, w, {"read_queue", "write_queue", "scheduler", "starvation_cap", "page_policy", "write_high_watermark",
                "write_low_watermark", "refresh", "refresh_postpone", "address_mapping", "xor_bank_hash",
                "dual_command", "shared_command_bus", "frontend_cycles", "backend_cycles"});
  auto u32 = [&](const char* key, std::uint32_t def, bool positive) {
    const std::uint64_t v = r.uint(c, w, key, def, positive);
    if (v > 1u << 20) r.fail(c[key], w + "." + key, "too large");
    return static_cast<std::uint32_t>(v);
  };
  k.read_queue = u32("read_queue", k.read_queue, true);
  k.write_queue = u32("write_queue", k.write_queue, true);
  k.starvation_cap = u32("starvation_cap", k.starvation_cap, false);
  if (k.starvation_cap > 65535)  // the queue counts bypasses in 16 bits
    r.fail(c["starvation_cap"], w + ".starvation_cap", "must be <= 65535, got " + std::to_string(k.starvation_cap));
  k.write_high_watermark = u32("write_high_watermark", k.write_queue * 3 / 4, true);
  k.write_low_watermark = u32("write_low_watermark", k.write_queue / 4, false);
  k.frontend_cycles = u32("frontend_cycles", k.frontend_cycles, false);
  k.backend_cycles = u32("backend_cycles", k.backend_cycles, false);
  const std::string sched = r.str(c, w, "scheduler", "frfcfs");
  if (sched != "frfcfs") r.fail(c["scheduler"], w + ".scheduler", "unknown scheduler '" + sched + "' (known: frfcfs)");
  const std::string page = r.str(c, w, "page_policy", "open");
  if (page == "open") k.page_policy = PagePolicy::kOpen;
  else if (page == "closed") k.page_policy = PagePolicy::kClosed;
  else r.fail(c["page_policy"], w + ".page_policy", "expected open or closed, got '" + page + "'");
  const std::string ref = r.str(c, w, "refresh", "all_bank");
  const auto mode = refresh_mode(ref);
  if (!mode) r.fail(c["refresh"], w + ".refresh", "expected all_bank, per_bank or none, got '" + ref + "'");
  k.refresh = *mode;
  const std::uint64_t postpone = r.uint(c, w, "refresh_postpone", k.refresh_postpone, false);
  if (postpone > kMaxRefreshPostpone)
    r.fail(c["refresh_postpone"], w + ".refresh_postpone",
           "at most " + std::to_string(kMaxRefreshPostpone) +
               " (JEDEC allows 8 postponed refreshes, and the one falling due counts while the owed ones issue)");
  // Per-bank refresh is never postponed (refresh_policy.cpp), and none is
  // no refresh: a count given with them here would be silently ignored.
  // (`--refresh per_bank` over a file's all-bank controller keeps that
  // file's count, unused.)
  if (postpone > 0 && k.refresh != RefreshMode::kAllBank)
    r.fail(c["refresh_postpone"], w + ".refresh_postpone",
           std::to_string(postpone) + " with refresh " + to_string(k.refresh) +
               (k.refresh == RefreshMode::kPerBank ? ", which is never postponed" : ", which issues no refresh") +
               ": refresh_postpone applies to all-bank refresh only (set it to 0 or remove it)");
  k.refresh_postpone = static_cast<std::uint32_t>(postpone);
  k.address_mapping = r.str(c, w, "address_mapping", k.address_mapping);
  k.xor_bank_hash = r.boolean(c, w, "xor_bank_hash", k.xor_bank_hash);
  k.dual_command = r.boolean(c, w, "dual_command", k.dual_command);
  k.shared_command_bus = r.boolean(c, w, "shared_command_bus", k.shared_command_bus);
  const bool high_given = static_cast<bool>(c["write_high_watermark"]);
  const bool low_given = static_cast<bool>(c["write_low_watermark"]);
  const bool fits = k.write_low_watermark < k.write_high_watermark && k.write_high_watermark <= k.write_queue;
  if (!fits && !(high_given && low_given)) {
    // A derived watermark is not in the file: blame the queue it came from.
    const auto n = [](std::uint32_t v) { return std::to_string(v); };
    r.fail(c["write_queue"] ? c["write_queue"] : c, w + ".write_queue",
           "watermarks low " + n(k.write_low_watermark) + (low_given ? "" : " (derived: write_queue / 4)") +
               " and high " + n(k.write_high_watermark) + (high_given ? "" : " (derived: write_queue x 3 / 4)") +
               " need low < high <= write_queue " + n(k.write_queue) +
               "; set write_low_watermark and write_high_watermark explicitly");
  }
  // Both given here (one derived would have failed above): each names its own line.
  if (k.write_low_watermark >= k.write_high_watermark)
    r.fail(c["write_low_watermark"], w + ".write_low_watermark", "must be below write_high_watermark");
  if (k.write_high_watermark > k.write_queue)
    r.fail(c["write_high_watermark"], w + ".write_high_watermark", "must not exceed write_queue");
  return k;
}

}  // namespace

void validate(const MemoryConfig& cfg) {
  const auto bad = [](const std::string& field, const std::string& why) { throw ConfigFieldError("", field, why); };
  const HbmOrg& o = cfg.device.org;
  // First: the checks below divide by the burst's size.
  if (o.bus_bits < 8 || o.burst_length == 0 || std::uint64_t{o.bus_bits / 8} * o.burst_length > kMaxBurstBytes)
    bad("device.organisation", "a burst (bus_bits / 8 x burst_length) must be 1 to " +
                                   std::to_string(kMaxBurstBytes) + " bytes");
  if (cfg.device.t.tCK_ps > kMaxTckPs) bad("device.timing.tCK_ps", "must be <= 1000000 ps");
  if (cfg.stacks == 0 || cfg.stacks > kMaxStacks)
    bad("memory.stacks", "must be 1 to " + std::to_string(kMaxStacks));
  if (cfg.stack_interleave_bytes == 0 || cfg.stack_interleave_bytes % o.burst_bytes() != 0)
    bad("memory.stack_interleave_bytes",
        "must be a positive multiple of the burst size (" + std::to_string(o.burst_bytes()) + " bytes)");
  // Each pseudo-channel is a controller with its own state: bounds that
  // keep a typo (16777216 channels) from building millions of them.
  const std::uint64_t pcs = std::uint64_t{o.channels} * o.pseudo_channels;  // HbmOrg::pcs() in 64 bits
  if (pcs > 1024)
    bad("device.organisation",
        "at most 1024 pseudo-channels a stack (channels x pseudo_channels), got " + std::to_string(pcs));
  if (pcs * cfg.stacks > 65536)
    bad("memory.stacks", "at most 65536 pseudo-channels in all (stacks x channels x pseudo_channels), got " +
                             std::to_string(pcs * cfg.stacks));
  if (std::uint64_t{o.bank_groups} * o.banks_per_group > 65535 || o.bursts_per_row() > 65535)
    bad("device.organisation", "at most 65535 banks per pseudo-channel and bursts per row");
  // Capacity in bytes must fit in 64 bits (computed wider here).
  using Wide = unsigned __int128;
  const Wide bytes = Wide{pcs} * o.banks() * o.rows * o.bursts_per_row() * o.burst_bytes() * cfg.stacks;
  if (bytes > (Wide{1} << 60))
    bad("device.organisation", "the memory holds more than 2^60 bytes (stacks x channels x pseudo_channels x "
                               "banks x rows x columns x bus_bits / 8)");
  if (const auto why = interleave_misfit(cfg)) bad("memory.stack_interleave_bytes", *why);
  // After the organisation's bounds: the mapper builds masks of its fields' bits.
  try {
    AddressMapper(o, cfg.controller.address_mapping, cfg.controller.xor_bank_hash);
  } catch (const std::invalid_argument& e) {
    bad("controller.address_mapping", e.what());
  }
  const ControllerConfig& c = cfg.controller;
  if (c.starvation_cap > 65535) bad("controller.starvation_cap", "must be <= 65535");
  if (c.refresh_postpone > kMaxRefreshPostpone)
    bad("controller.refresh_postpone", "must be <= " + std::to_string(kMaxRefreshPostpone));
  if (c.read_queue == 0 || c.write_queue == 0)
    bad(c.read_queue == 0 ? "controller.read_queue" : "controller.write_queue", "must hold >= 1 burst");
  if (c.write_low_watermark >= c.write_high_watermark || c.write_high_watermark > c.write_queue)
    bad(c.write_low_watermark >= c.write_high_watermark ? "controller.write_low_watermark"
                                                         : "controller.write_high_watermark",
        "the watermarks need low < high <= write_queue");
  if (cfg.device.t.tCK_ps == 0 || cfg.device.t.burst_cycles == 0 || cfg.device.t.REFI == 0 ||
      cfg.device.t.REFIsb == 0)
    bad("device.timing", "needs tCK, burst cycles, tREFI and tREFIsb > 0");
  if (cfg.device.t.tCK_ps < 16) bad("device.timing.tCK_ps", "must be >= 16 ps");
  for (const auto& broken : {data_or_refresh_rule_broken(cfg.device.t, o.banks()),
                            refresh_rule_broken(cfg.device.t, c.refresh, o.banks())})
    if (broken) bad(std::string("device.timing.") + broken->field, broken->what);
}

MemoryConfig parse_memory_config(const std::string& text, const std::string& file,
                                 std::optional<RefreshMode> refresh) {
  const Reader r(file);
  const YAML::Node root = r.load(text);
  if (!root.IsMap())
    throw std::invalid_argument(file + ":1: expected a mapping with 'device', 'memory', 'controller'");
  r.only(root, "", {"device", "memory", "controller", "check_timing"});
  MemoryConfig cfg;
  cfg.file = file;
  const YAML::Node d = root["device"];
  if (!d) r.fail(root, "device", "missing");
  // A scalar names a preset file, relative to this file; errors in the
  // device then name that file.
  const Reader dr(d.IsScalar() ? (std::filesystem::path(file).parent_path() / d.Scalar()).string() : file);
  YAML::Node pre;
  if (d.IsScalar()) {
    const std::string& path = dr.file();
    std::string text;
    try {
      text = read_config_file(path, "preset");
    } catch (const std::invalid_argument& e) {
      r.fail(d, "device", e.what());
    }
    pre = dr.load(text);
    if (!pre.IsMap() || !pre["device"]) throw std::invalid_argument(path + ":1: field 'device': missing");
    dr.unique_keys(pre, "");  // only its device is read, and that must be the only one
  }
  const YAML::Node dev = d.IsScalar() ? pre["device"] : d;
  cfg.device = parse_device(dr, dev);
  if (const YAML::Node m = root["memory"]) {
    r.only(m, "memory", {"stacks", "stack_interleave_bytes"});
    const std::uint64_t stacks = r.uint(m, "memory", "stacks", 1);
    if (stacks > kMaxStacks) r.fail(m["stacks"], "memory.stacks", "too large (max " + std::to_string(kMaxStacks) + ")");
    cfg.stacks = static_cast<std::uint32_t>(stacks);
    cfg.stack_interleave_bytes = r.uint(m, "memory", "stack_interleave_bytes", cfg.stack_interleave_bytes);
    if (cfg.stack_interleave_bytes % cfg.device.org.burst_bytes() != 0)
      r.fail(m["stack_interleave_bytes"], "memory.stack_interleave_bytes",
             "must be a multiple of the burst size (" + std::to_string(cfg.device.org.burst_bytes()) + " bytes)");
    if (const auto why = interleave_misfit(cfg))
      r.fail(m["stack_interleave_bytes"] ? m["stack_interleave_bytes"] : m, "memory.stack_interleave_bytes", *why);
  }
  cfg.controller = parse_controller(r, root["controller"]);
  if (refresh) cfg.controller.refresh = *refresh;
  cfg.check_timing = r.boolean(root, "", "check_timing", false);
  try {
    AddressMapper(cfg.device.org, cfg.controller.address_mapping, cfg.controller.xor_bank_hash);
  } catch (const std::invalid_argument& e) {
    const YAML::Node c = root["controller"];
    if (c && c["address_mapping"]) r.fail(c["address_mapping"], "controller.address_mapping", e.what());
    // The default mapping: the organisation is what the file gave.
    const std::string why = "the default controller." + std::string(e.what()) + "; give one for this organisation";
    if (d.IsScalar()) dr.fail_at_field(pre, "device.organisation", why);
    r.fail_at_field(root, "device.organisation", why);
  }
  if (const auto broken = refresh_rule_broken(cfg.device.t, cfg.controller.refresh, cfg.device.org.banks())) {
    const YAML::Node t = dev["timing"];
    const YAML::Node given = t[broken->field];
    dr.fail(given ? given : t, std::string("device.timing.") + broken->field,
            broken->what + (given ? "" : " (" + std::string(broken->field) + " not given: set it explicitly)") +
                (refresh ? " (refresh " + std::string(to_string(*refresh)) + ", as overridden)" : ""));
  }
  try {
    validate(cfg);
  } catch (const ConfigFieldError& e) {
    // At the field's line, or its nearest ancestor's: the device's in its own file when a
    // preset names it.
    if (e.field.rfind("device.", 0) == 0 && d.IsScalar()) dr.fail_at_field(pre, e.field, e.why);
    r.fail_at_field(root, e.field, e.why);
  }
  return cfg;
}

MemoryConfig load_memory_config(const std::string& path, std::optional<RefreshMode> refresh) {
  return parse_memory_config(read_config_file(path, "memory config"), path, refresh);
}

}  // namespace mxc::hbm
