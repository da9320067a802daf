#pragma once
// A memory system: N stacks of one device preset, how addresses interleave
// across them, and the controller policy of every pseudo-channel.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "models/hbm/hbm_spec.h"

namespace mxc::hbm {

enum class PagePolicy { kOpen, kClosed };
enum class RefreshMode { kAllBank, kPerBank, kNone };
/// The config's name of a refresh mode (controller.refresh).
inline const char* to_string(RefreshMode m) {
  return m == RefreshMode::kAllBank ? "all_bank" : m == RefreshMode::kPerBank ? "per_bank" : "none";
}
/// The refresh mode of that name; nullopt for a name that is none.
inline std::optional<RefreshMode> refresh_mode(std::string_view name) {
  for (const RefreshMode m : {RefreshMode::kAllBank, RefreshMode::kPerBank, RefreshMode::kNone})
    if (name == to_string(m)) return m;
  return std::nullopt;
}

/// JEDEC lets a controller postpone at most 8 refreshes at any time (the
/// DDR rule, which the timing checker applies to HBM). One more falls due
/// while the owed ones wait for its precharge, so a controller may owe at
/// most 7 when it does.
inline constexpr std::uint32_t kMaxRefreshPostpone = 7;

/// Policy of each pseudo-channel controller.
struct ControllerConfig {
  std::uint32_t read_queue = 32;          ///< Read queue depth (bursts).
  std::uint32_t write_queue = 32;         ///< Write queue depth (bursts).
  std::uint32_t starvation_cap = 16;      ///< Times the oldest request may be bypassed.
  PagePolicy page_policy = PagePolicy::kOpen;
  std::uint32_t write_high_watermark = 24;  ///< Start draining writes at this occupancy.
  std::uint32_t write_low_watermark = 8;    ///< Stop draining at this occupancy.
  RefreshMode refresh = RefreshMode::kAllBank;
  /// Refreshes a busy controller may owe (0 to kMaxRefreshPostpone): one
  /// that falls due while bursts are queued is postponed until this many
  /// are owed; the next due then refreshes them all back to back, and an
  /// idle controller catches up at once.
  std::uint32_t refresh_postpone = 0;
  /// Address bit order, most significant field first; "co:2" takes 2 bits.
  std::string address_mapping = "ro-ba-co:4-ch-pc-bg-co:1";
  bool xor_bank_hash = false;   ///< XOR bank / bank-group bits with low row bits.
  bool dual_command = true;     ///< One row and one column command per cycle.
  /// The pseudo-channels of a channel share its command buses, as JESD235
  /// and JESD238 have them; false gives each pseudo-channel buses of its
  /// own (as simulators that model pseudo-channels as channels do).
  bool shared_command_bus = true;
  std::uint32_t frontend_cycles = 1;  ///< Decode and enqueue before scheduling.
  std::uint32_t backend_cycles = 1;   ///< Response return after the last beat.
};

/// The most stacks a memory config may have (the loader and the command
/// line both check it).
inline constexpr std::uint32_t kMaxStacks = 1024;

/// The whole memory system.
struct MemoryConfig {
  HbmDeviceSpec device;
  std::uint32_t stacks = 1;
  std::uint64_t stack_interleave_bytes = 4096;  ///< Block size rotated across stacks.
  ControllerConfig controller;
  bool check_timing = false;  ///< Run the independent timing checker.
  /// Controllers take exact shortcuts (streaming row hits; a step's commands
  /// from the plan the step before made); off = the general scheduler
  /// picking afresh on every step (tests compare the two).
  bool fast_path = true;
  /// Every controller steps in every cycle from cycle 0 (an idle one when
  /// the model replays its idle time), with the general scheduler (no
  /// shortcuts, whatever fast_path says), instead of sleeping until its
  /// next event: the reference tests hold the event-driven run against (a
  /// wake-up that came too late would show as a command issued earlier
  /// here). Slow.
  bool every_cycle = false;
  std::string file;           ///< Where it was loaded from (messages).
};

}  // namespace mxc::hbm
