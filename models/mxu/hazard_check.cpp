#include "models/mxu/hazard_check.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <vector>

#include "models/mxu/unit_queues.h"

namespace mxc {

namespace {

constexpr int kUnits = 3;  // DMA, compute, ICI: Unit's values 1..3
constexpr std::array<const char*, kUnits> kWaitField = {"wait_dma", "wait_compute", "wait_ici"};
constexpr std::array<const char*, kUnits> kUnitName = {"DMA", "compute", "ICI"};

/// Unit's index among the three, -1 for none (NOP, FENCE).
int unit_index(Opcode op) { return static_cast<int>(unit_of(op)) - 1; }

std::uint8_t wait_on(const Instr& in, int unit) {
  return unit == 0 ? in.wait_dma : unit == 1 ? in.wait_compute : in.wait_ici;
}

struct RowUse {
  std::uint32_t first = 0, count = 0;
  bool write = false;
  bool any() const { return count != 0; }
};

/// The scratchpad rows an instruction reads or writes (docs/isa.md).
RowUse scratchpad_rows(const Instr& in) {
  switch (in.op) {
    case Opcode::DMA_LOAD:
    case Opcode::OUTPUT: return {in.sp_row, in.rows, true};
    case Opcode::DMA_STORE:
    case Opcode::LOAD_WEIGHTS:
    case Opcode::MATMUL:
    case Opcode::ICI_SEND: return {in.sp_row, in.rows, false};
    default: return {};
  }
}

}  // namespace

std::optional<Hazard> find_hazard(const Program& program) {
  // Per instruction, how many of each unit's first instructions are
  // complete when it dispatches.
  using Done = std::array<std::uint64_t, kUnits>;
  std::vector<Done> done(program.size());
  std::array<std::vector<std::size_t>, kUnits> of_unit;  // each unit's instructions, in order
  Done carried{};  // what held at the previous dispatch (dispatch is in order)
  // Accumulator write-backs: the MATMULs so far, the latest OUTPUT among the
  // first k compute instructions (OUTPUT starts once the array has drained),
  // and the index before which every MATMUL is written back at this dispatch.
  std::vector<std::size_t> matmuls;
  std::vector<std::size_t> output_upto;  // per compute ordinal; 0 when none
  std::size_t drained_before = 0;
  for (std::size_t i = 0; i < program.size(); ++i) {
    const Instr& in = program[i];
    const int u = unit_index(in.op);
    Done g = carried;
    for (int x = 0; x < kUnits; ++x) {
      const std::uint64_t n = of_unit[x].size();
      std::uint64_t limit = in.op == Opcode::FENCE ? 0 : wait_on(in, x) == isa::kNoWait ? n : wait_on(in, x);
      limit = std::min(limit, max_outstanding_at_dispatch(unit_of(in.op), static_cast<Unit>(x + 1)));
      g[x] = std::max(g[x], n - std::min(n, limit));
    }
    // A complete instruction was dispatched: what held then holds now.
    for (bool grew = true; grew;) {
      grew = false;
      for (int x = 0; x < kUnits; ++x) {
        if (g[x] == 0) continue;
        const Done& then = done[of_unit[x][g[x] - 1]];
        for (int y = 0; y < kUnits; ++y)
          if (then[y] > g[y]) g[y] = then[y], grew = true;
      }
    }
    done[i] = carried = g;
    if (g[1] != 0) drained_before = std::max(drained_before, output_upto[g[1] - 1]);
    if (in.op == Opcode::FENCE) drained_before = i;  // it waits for the array to drain
    if (in.op == Opcode::ICI_SEND && in.to_acc) {
      // Every chip runs the program: chip dst_chip adds these rows into its
      // own accumulators, where a MATMUL not yet written back may still write.
      for (std::size_t k = matmuls.size(); k-- > 0 && matmuls[k] >= drained_before;) {
        const Instr& mm = program[matmuls[k]];
        const std::uint32_t first = std::max<std::uint32_t>(in.remote_row, mm.acc_row);
        const std::uint32_t end = std::min<std::uint32_t>(in.remote_row + in.rows, mm.acc_row + mm.rows);
        if (first >= end) continue;
        Hazard h;
        h.earlier = matmuls[k];
        h.later = i;
        h.first_row = first;
        h.last_row = end - 1;
        h.accumulators = h.later_writes = h.earlier_writes = true;
        h.fix = "a fence before it";
        return h;
      }
    }
    if (u < 0) continue;
    const RowUse mine = scratchpad_rows(in);
    if (mine.any()) {
      for (int x = 0; x < kUnits; ++x) {
        if (x == u) continue;
        // The latest racing instruction of unit x: the wait that covers it covers the ones before.
        for (std::uint64_t k = of_unit[x].size(); k-- > g[x];) {
          const std::size_t j = of_unit[x][k];
          const RowUse theirs = scratchpad_rows(program[j]);
          if (!(mine.write || theirs.write)) continue;
          const std::uint32_t first = std::max(mine.first, theirs.first);
          const std::uint32_t end = std::min(mine.first + mine.count, theirs.first + theirs.count);
          if (first >= end) continue;
          Hazard h;
          h.earlier = j;
          h.later = i;
          h.first_row = first;
          h.last_row = end - 1;
          h.later_writes = mine.write;
          h.earlier_writes = theirs.write;
          h.fix = std::string(kWaitField[x]) + "=" + std::to_string(of_unit[x].size() - k - 1);
          return h;
        }
      }
    }
    if (in.op == Opcode::MATMUL) matmuls.push_back(i);
    if (u == 1) output_upto.push_back(in.op == Opcode::OUTPUT ? i : output_upto.empty() ? 0 : output_upto.back());
    of_unit[u].push_back(i);
  }
  return std::nullopt;
}

void check_hazards(const Program& program, const ProgramSource& source) {
  const std::optional<Hazard> h = find_hazard(program);
  if (!h) return;
  const Instr& earlier = program[h->earlier];
  const std::string rows = h->first_row == h->last_row
                               ? "row " + std::to_string(h->first_row)
                               : "rows " + std::to_string(h->first_row) + ".." + std::to_string(h->last_row);
  if (h->accumulators)
    throw std::invalid_argument(
        source.where(h->later) + ": '" + describe(program[h->later]) + "' adds into accumulator " + rows +
        " of chip " + std::to_string(program[h->later].dst_chip) + ", which runs this program too, while '" +
        describe(earlier) + "' (" + source.where(h->earlier) + ") may still be writing its results back there: a "
        "MATMUL completes when its last vector enters the array, and its results reach the accumulators ROWS + "
        "COLS cycles later, so the result depends on timing (" + h->fix + " would wait for them)");
  throw std::invalid_argument(source.where(h->later) + ": '" + describe(program[h->later]) + "' " +
                              (h->later_writes ? "writes" : "reads") + " scratchpad " + rows + " while '" +
                              describe(earlier) + "' (" + source.where(h->earlier) + ") may still be " +
                              (h->earlier_writes ? "writing" : "reading") + " them: nothing makes it wait for that " +
                              kUnitName[unit_index(earlier.op)] +
                              " instruction to complete, so the result depends on timing (" + h->fix +
                              " would wait for it)");
}

}  // namespace mxc
