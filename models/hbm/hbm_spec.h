#pragma once
// Device description of one HBM stack: organisation and timing, as read from
// a preset under configs/hbm. Timings are whole cycles of tCK.
#include <cstdint>
#include <string>

#include "models/core/time.h"

namespace mxc::hbm {

/// Organisation of one stack; the pseudo-channel is the unit of control.
struct HbmOrg {
  std::uint32_t channels = 8;         ///< Channels per stack.
  std::uint32_t pseudo_channels = 2;  ///< Pseudo-channels per channel.
  std::uint32_t bank_groups = 4;      ///< Bank groups per pseudo-channel.
  std::uint32_t banks_per_group = 4;  ///< Banks per bank group.
  std::uint32_t rows = 32768;         ///< Rows per bank.
  std::uint32_t columns = 128;        ///< Column addresses (bus-width words) per row.
  std::uint32_t bus_bits = 64;        ///< Data bus width of one pseudo-channel.
  std::uint32_t burst_length = 4;     ///< Data beats per column command.

  std::uint32_t banks() const { return bank_groups * banks_per_group; }
  std::uint32_t pcs() const { return channels * pseudo_channels; }
  std::uint32_t burst_bytes() const { return bus_bits / 8 * burst_length; }
  std::uint32_t bursts_per_row() const { return columns / burst_length; }
  std::uint64_t stack_bytes() const {
    return std::uint64_t{pcs()} * banks() * rows * bursts_per_row() * burst_bytes();
  }
};

/// JEDEC timing parameters in tCK cycles (tCK itself in picoseconds).
struct HbmTiming {
  Time tCK_ps = 1000;
  std::uint32_t CL = 14, CWL = 4, RCDRD = 14, RCDWR = 14, RP = 14, RAS = 34, RC = 48;
  std::uint32_t WR = 16, RTP = 5, CCD_S = 2, CCD_L = 4, RRD_S = 4, RRD_L = 4, FAW = 16;
  std::uint32_t WTR_S = 6, WTR_L = 8;
  std::uint32_t RTW = 12;  ///< Read-to-write command spacing (bus turnaround included).
  std::uint32_t RFC = 260, RFCsb = 160, REFI = 3900, REFIsb = 244;
  std::uint32_t RREFD = 8;  ///< Per-bank refresh to refresh / activate of another bank.
  /// Precharge to precharge (PRE or PREA) in a pseudo-channel: JESD238's
  /// tPPD (HBM3; Ramulator 2.1's nPPD). 0 on HBM2 and HBM2E, whose standard
  /// has no such rule.
  std::uint32_t PPD = 0;
  /// Row-bus cycles an ACT holds: its row address takes two cycles on HBM's
  /// row command pins (JESD235, JESD238); other commands hold their bus one.
  std::uint32_t ACT_cycles = 2;
  std::uint32_t burst_cycles = 2;  ///< Data-bus cycles of one burst (derived).
};

/// One stack's device preset.
struct HbmDeviceSpec {
  std::string name;      ///< e.g. "HBM2-2000".
  std::string standard;  ///< e.g. "JESD235D".
  std::string source;    ///< Where the figures come from.
  double data_rate_gbps = 2.0;  ///< Per pin.
  HbmOrg org;
  HbmTiming t;

  /// Peak bandwidth of one stack in GB/s at the model's clock: pins x
  /// (burst_length beats per burst_cycles tCK) / 8. It is pins x
  /// data_rate_gbps / 8 when tCK is exact; a tCK rounded to whole
  /// picoseconds (3.6 Gb/s: 556 ps, 3.597 Gb/s a pin) gives what the
  /// model can reach rather than the nominal rate.
  double peak_gbps() const {
    return static_cast<double>(org.pcs()) * org.bus_bits / 8.0 * org.burst_length /
           (static_cast<double>(t.burst_cycles) * static_cast<double>(t.tCK_ps) / 1000.0);
  }
};

}  // namespace mxc::hbm
