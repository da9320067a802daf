#pragma once
// Timeline helpers: turn what a run recorded (instruction events, memory
// monitor logs, ICI deliveries) into TraceWriter tracks. Slices on one track
// never overlap: overlapping ones (a unit's queued instruction, requests in
// flight together) go to further lanes of the same kind, "dma", "dma #2", ...,
// as many as the slices need.
#include <cstdint>
#include <vector>

#include "bridge/memory_monitor.h"
#include "cosim/trace_writer.h"
#include "models/core/clock_domain.h"
#include "models/core/ici_packet.h"
#include "models/hbm/hbm_command.h"
#include "models/mxu/instr.h"

namespace mxc {

/// Track ids used by trace_instructions(); lane k of a unit is base + k.
inline constexpr int kTraceTidDispatch = 1;
inline constexpr int kTraceTidDma = 100;
inline constexpr int kTraceTidCompute = 200;
inline constexpr int kTraceTidIci = 300;
inline constexpr int kTraceUnitLanes = 100;
/// Track ids of trace_memory(): 1000 + 1000 * channel + lane; of trace_ici():
/// 2'000'000 + 1000 * route + lane; so all three may share one pid.
inline constexpr int kTraceTidChannelBase = 1000;
inline constexpr int kTraceTidRouteBase = 2'000'000;
/// Track id of trace_hbm_commands(): 3'000'000 + pseudo-channel.
inline constexpr int kTraceTidPseudoChannelBase = 3'000'000;
inline constexpr int kTraceLanesPerTrack = 1000;
/// Lanes past a track's own range (more than 100 instructions of a unit, or 1000 requests or
/// packets of a track, in flight together) take ids in order of use from one range per function,
/// sorted after the track's own lanes: any number of slices may overlap.
inline constexpr int kTraceTidInstrOverflow = 1'000'000'000;
inline constexpr int kTraceTidMemoryOverflow = 1'300'000'000;
inline constexpr int kTraceTidIciOverflow = 1'600'000'000;
inline constexpr int kTraceTidOverflowEnd = 1'900'000'000;
/// A track's sort index is its id times this; overflow lane k (from 1) of a track whose last own
/// lane is id L sorts at L * kTraceSortStride + k: after the track's own lanes, in order, and
/// before the next id, as one range holds fewer overflow lanes than the stride.
inline constexpr std::int64_t kTraceSortStride = std::int64_t{1} << 30;
static_assert(kTraceTidOverflowEnd - kTraceTidIciOverflow < kTraceSortStride &&
              kTraceTidIciOverflow - kTraceTidMemoryOverflow < kTraceSortStride &&
              kTraceTidMemoryOverflow - kTraceTidInstrOverflow < kTraceSortStride);

/// Instructions of `program` as slices from dispatch to done, one track per unit
/// (dma, compute, ici); unit-less ones (NOP, FENCE) as instants on "dispatch".
/// events[i] must describe program[events[i].index].
void trace_instructions(TraceWriter& out, int pid, const Program& program, const std::vector<InstrEvent>& events,
                        const ClockDomain& clk);

/// Memory requests as slices from issue to completion, one track per (source,
/// read/write); requests never completed as instants at acceptance.
void trace_memory(TraceWriter& out, int pid, const MemoryLog& log);

/// Delivered ICI packets as slices from injection to delivery, one track per (src, dst) route.
void trace_ici(TraceWriter& out, int pid, const std::vector<IciPacket>& delivered);

/// One DRAM command and the global pseudo-channel that issued it.
struct HbmCommandRecord {
  std::uint32_t pc = 0;
  hbm::DramCommand cmd;
};

/// DRAM commands as one-cycle slices ("ACT", "RD", ...) on one track per
/// pseudo-channel; `clk` is the HBM command clock their cycles count.
void trace_hbm_commands(TraceWriter& out, int pid, const std::vector<HbmCommandRecord>& commands,
                        const ClockDomain& clk);

}  // namespace mxc
