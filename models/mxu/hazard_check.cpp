#include "models/mxu/hazard_check.h"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <utility>
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

/// The rows [a, a + m) and [b, b + n) have in common: [first, end), none when first >= end.
std::pair<std::uint32_t, std::uint32_t> common_rows(std::uint32_t a, std::uint32_t m, std::uint32_t b,
                                                    std::uint32_t n) {
  return {std::max(a, b), std::min(a + m, b + n)};
}

/// An ICI_SEND to the chip that sends it (into its accumulators with to_acc,
/// else into its scratchpad) whose rows may not all have arrived yet.
struct Inbound {
  std::size_t send = 0;
  std::uint8_t chip = 0;
  std::uint64_t through = 0;  ///< Rows the chip has sent itself up to its last one, that one included.
  bool to_acc = false;        ///< Into accumulator rows, else into scratchpad rows.
};

constexpr std::uint64_t kUnknown = std::numeric_limits<std::uint64_t>::max();
constexpr std::size_t kNoSend = std::numeric_limits<std::size_t>::max();

/// A race between instructions `earlier` and `later` over rows [first, end).
Hazard race_over(std::size_t earlier, std::size_t later, std::uint32_t first, std::uint32_t end) {
  Hazard h;
  h.earlier = earlier;
  h.later = later;
  h.first_row = first;
  h.last_row = end - 1;
  return h;
}

}  // namespace

std::optional<Hazard> find_hazard(const Program& program, const RunOn& run_on) {
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
  // Rows a chip sends itself arrive in the order sent. Per chip: the rows it
  // has sent itself, and the most other chips send it, all of which an
  // ICI_WAIT of its may count before its own.
  const auto to_itself = [&](const Instr& in) {
    return in.op == Opcode::ICI_SEND && (!run_on.chip || in.dst_chip == *run_on.chip);
  };
  std::array<std::uint64_t, 256> sent_itself{}, from_others{};
  if (run_on.chip) {
    if (run_on.chips > 1) from_others.fill(kUnknown);
  } else if (run_on.chips > 1) {
    for (const Instr& in : program)
      if (in.op == Opcode::ICI_SEND) from_others[in.dst_chip] += std::uint64_t{run_on.chips - 1} * in.rows;
  }
  std::vector<std::uint64_t> waited;  // per ICI ordinal: the rows the ICI_WAITs up to it count
  std::vector<Inbound> inbound;
  // Whether ICI_WAITs counting `rows` in all count the rows of `s` up to
  // row `end` of its chip's memory (they arrive in order), or all of them.
  const auto counted = [&](std::uint64_t rows, const Inbound& s, std::optional<std::uint32_t> end = {}) {
    const std::uint64_t others = from_others[s.chip];
    const Instr& send = program[s.send];
    const std::uint64_t need = end ? s.through - send.rows + (*end - send.remote_row) : s.through;
    return others != kUnknown && rows >= others && rows - others >= need;
  };
  // What makes an instruction wait for the rows of `s` up to row `end`: the
  // first ICI_WAIT so far that counts them (for another unit's instruction,
  // through wait_ici), or one still to be written before it.
  const auto wait_for_arrival = [&](const Inbound& s, std::uint32_t end, bool ici_unit) -> std::string {
    for (std::size_t o = 0; o < waited.size(); ++o)
      if (counted(waited[o], s, end))
        return std::string(kWaitField[2]) + "=" + std::to_string(waited.size() - o - 1);
    return ici_unit ? "an ici_wait counting them before it" : "an ici_wait counting them before it and wait_ici=0";
  };
  // Every chip runs the program: chip dst_chip receives each ICI_SEND's rows
  // from every chip, in an order nothing fixes. What depends on that order
  // (a plain send's scratchpad rows; accumulator rows bf16 rows were added
  // into, whose floating-point sum does) is followed through what the
  // program computes from it, per scratchpad row, accumulator row and weight
  // buffer: the send it comes from, or kNoSend. Only memory is compared, so
  // only a store of such rows makes the result depend on timing.
  const bool copies = !run_on.chip && run_on.chips > 1;
  std::vector<std::size_t> sp_from, acc_from;
  std::array<std::size_t, 2> buf_from{kNoSend, kNoSend};
  const auto set = [](std::vector<std::size_t>& rows, std::uint32_t first, std::uint32_t n, std::size_t send) {
    if (rows.size() < std::size_t{first} + n) rows.resize(std::size_t{first} + n, kNoSend);
    std::fill_n(rows.begin() + first, n, send);
  };
  const auto at = [](const std::vector<std::size_t>& rows, std::size_t r) {
    return r < rows.size() ? rows[r] : kNoSend;
  };
  // The first row of [first, first + n) that depends on the order, if any.
  const auto first_from = [&](const std::vector<std::size_t>& rows, std::uint32_t first, std::uint32_t n) {
    for (std::size_t r = first; r < std::size_t{first} + n; ++r)
      if (at(rows, r) != kNoSend) return r;
    return std::size_t{kNoSend};
  };
  Done g{};  // per unit, its first instructions complete at the current dispatch
  // Instruction i using scratchpad rows `mine` while another unit's earlier
  // instruction may still use them, one of the two writing.
  const auto race_with_other_units = [&](std::size_t later, const RowUse& mine) -> std::optional<Hazard> {
    const int u = unit_index(program[later].op);
    for (int x = 0; x < kUnits; ++x) {
      if (x == u) continue;
      // The latest racing instruction of unit x: the wait that covers it covers the ones before.
      for (std::uint64_t k = of_unit[x].size(); k-- > g[x];) {
        const std::size_t j = of_unit[x][k];
        const RowUse theirs = scratchpad_rows(program[j]);
        if (!(mine.write || theirs.write)) continue;
        const auto [first, end] = common_rows(mine.first, mine.count, theirs.first, theirs.count);
        if (first >= end) continue;
        Hazard h = race_over(j, later, first, end);
        h.later_writes = mine.write;
        h.earlier_writes = theirs.write;
        h.fix = std::string(kWaitField[x]) + "=" + std::to_string(of_unit[x].size() - k - 1);
        return h;
      }
    }
    return std::nullopt;
  };
  for (std::size_t i = 0; i < program.size(); ++i) {
    const Instr& in = program[i];
    const int u = unit_index(in.op);
    g = carried;
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
    // Rows the ICI_WAITs complete at this dispatch count have arrived.
    const std::uint64_t rows_waited = g[2] == 0 ? 0 : waited[g[2] - 1];
    std::erase_if(inbound, [&](const Inbound& s) { return counted(rows_waited, s); });
    if (in.op == Opcode::ICI_SEND && in.to_acc && to_itself(in)) {
      // Chip dst_chip adds these rows into its own accumulators, where a
      // MATMUL not yet written back may still write.
      for (std::size_t k = matmuls.size(); k-- > 0 && matmuls[k] >= drained_before;) {
        const Instr& mm = program[matmuls[k]];
        const auto [first, end] = common_rows(in.remote_row, in.rows, mm.acc_row, mm.rows);
        if (first >= end) continue;
        Hazard h = race_over(matmuls[k], i, first, end);
        h.accumulators = h.later_writes = h.earlier_writes = true;
        h.race = Hazard::Race::kWriteBack;
        h.fix = "a fence before it";
        return h;
      }
      // Or an OUTPUT not yet complete may still read them.
      for (std::uint64_t k = of_unit[1].size(); k-- > g[1];) {
        const std::size_t j = of_unit[1][k];
        const Instr& out = program[j];
        if (out.op != Opcode::OUTPUT) continue;
        const auto [first, end] = common_rows(in.remote_row, in.rows, out.acc_row, out.rows);
        if (first >= end) continue;
        Hazard h = race_over(j, i, first, end);
        h.accumulators = h.later_writes = true;
        h.race = Hazard::Race::kRead;
        h.fix = std::string(kWaitField[1]) + "=" + std::to_string(of_unit[1].size() - k - 1);
        return h;
      }
    }
    if (in.op == Opcode::MATMUL || in.op == Opcode::OUTPUT) {
      // Rows this chip sent itself that may not have arrived are added
      // whenever they do: before or after this instruction's.
      for (std::size_t k = inbound.size(); k-- > 0;) {
        const Inbound& s = inbound[k];
        if (!s.to_acc) continue;
        const Instr& send = program[s.send];
        const auto [first, end] = common_rows(in.acc_row, in.rows, send.remote_row, send.rows);
        if (first >= end || counted(rows_waited, s, end)) continue;
        Hazard h = race_over(s.send, i, first, end);
        h.accumulators = h.earlier_writes = true;
        h.later_writes = in.op == Opcode::MATMUL;
        h.race = Hazard::Race::kArrival;
        h.fix = wait_for_arrival(s, end, false);
        return h;
      }
    }
    if (u < 0) continue;
    const RowUse mine = scratchpad_rows(in);
    if (mine.any()) {
      // Scratchpad rows this chip sent itself that may not have arrived are
      // written whenever they do. The ICI unit runs its instructions in
      // order: when one of its runs, every earlier ICI_WAIT has completed.
      const std::uint64_t arrived = u == 2 ? (waited.empty() ? 0 : waited.back()) : rows_waited;
      for (std::size_t k = inbound.size(); k-- > 0;) {
        const Inbound& s = inbound[k];
        const Instr& send = program[s.send];
        if (s.to_acc) continue;
        const auto [first, end] = common_rows(mine.first, mine.count, send.remote_row, send.rows);
        if (first >= end || counted(arrived, s, end)) continue;
        Hazard h = race_over(s.send, i, first, end);
        h.earlier_writes = true;
        h.later_writes = mine.write;
        h.race = Hazard::Race::kArrival;
        h.fix = wait_for_arrival(s, end, u == 2);
        return h;
      }
      if (const auto h = race_with_other_units(i, mine)) return h;
    }
    // The rows a chip sends itself write its scratchpad when they arrive, as
    // soon as the send runs: other units' instructions still using them race.
    if (in.op == Opcode::ICI_SEND && !in.to_acc && to_itself(in))
      if (auto h = race_with_other_units(i, RowUse{in.remote_row, in.rows, true})) {
        h->destination = true;
        return h;
      }
    if (copies) {
      const auto source_of = [&](std::uint32_t first, std::uint32_t n) {
        const std::size_t r = first_from(sp_from, first, n);
        return r == kNoSend ? kNoSend : sp_from[r];
      };
      switch (in.op) {
        case Opcode::DMA_STORE:
          if (const std::size_t r = first_from(sp_from, in.sp_row, in.rows); r != kNoSend) {
            std::size_t end = r;
            while (end < std::size_t{in.sp_row} + in.rows && at(sp_from, end) == sp_from[r]) ++end;
            Hazard h = race_over(sp_from[r], i, static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(end));
            h.race = Hazard::Race::kCopies;
            h.accumulators = program[sp_from[r]].to_acc;
            return h;
          }
          break;
        case Opcode::DMA_LOAD: set(sp_from, in.sp_row, in.rows, kNoSend); break;
        case Opcode::LOAD_WEIGHTS: buf_from[in.buf & 1] = source_of(in.sp_row, in.rows); break;
        case Opcode::MATMUL: {
          std::size_t from = source_of(in.sp_row, in.rows);
          if (from == kNoSend) from = buf_from[in.buf & 1];
          if (from != kNoSend || !in.accumulate) set(acc_from, in.acc_row, in.rows, from);
          break;
        }
        case Opcode::OUTPUT:
          for (std::uint32_t k = 0; k < in.rows; ++k) set(sp_from, in.sp_row + k, 1, at(acc_from, in.acc_row + k));
          break;
        case Opcode::ICI_SEND:
          if (!in.to_acc) set(sp_from, in.remote_row, in.rows, i);
          else if (in.dtype == DType::kBf16) set(acc_from, in.remote_row, in.rows, i);
          else if (const std::size_t from = source_of(in.sp_row, in.rows); from != kNoSend)
            set(acc_from, in.remote_row, in.rows, from);
          break;
        default: break;
      }
    }
    if (in.op == Opcode::MATMUL) matmuls.push_back(i);
    if (u == 1) output_upto.push_back(in.op == Opcode::OUTPUT ? i : output_upto.empty() ? 0 : output_upto.back());
    if (u == 2) waited.push_back((waited.empty() ? 0 : waited.back()) + (in.op == Opcode::ICI_WAIT ? in.rows : 0));
    if (to_itself(in)) {
      sent_itself[in.dst_chip] += in.rows;
      inbound.push_back({i, in.dst_chip, sent_itself[in.dst_chip], in.to_acc});
    }
    of_unit[u].push_back(i);
  }
  return std::nullopt;
}

void check_hazards(const Program& program, const ProgramSource& source, std::uint32_t chips) {
  const std::optional<Hazard> h = find_hazard(program, RunOn{chips, std::nullopt});
  if (!h) return;
  const Instr& earlier = program[h->earlier];
  const Instr& later = program[h->later];
  // On several chips the others, running the file too, send chip dst_chip as many rows, which an
  // ICI_WAIT may count first.
  const std::string others =
      chips < 2    ? ""
      : chips == 2 ? " (and the other chip sends it as many rows, which may be counted first)"
                   : " (and the other " + std::to_string(chips - 1) +
                         " chips send it as many rows each, which may be counted first)";
  const std::string rows = h->first_row == h->last_row
                               ? "row " + std::to_string(h->first_row)
                               : "rows " + std::to_string(h->first_row) + ".." + std::to_string(h->last_row);
  if (h->race == Hazard::Race::kCopies)
    throw std::invalid_argument(
        source.where(h->later) + ": '" + describe(later) + "' stores scratchpad " + rows + ", whose data on chip " +
        std::to_string(earlier.dst_chip) + " comes from the rows '" + describe(earlier) + "' (" +
        source.where(h->earlier) + ") " + (h->accumulators ? "adds" : "sends") + " from each of the " +
        std::to_string(chips) + " chips running this program: the copies arrive in an order nothing fixes" +
        (h->accumulators ? ", and a floating-point sum of bf16 rows depends on it" : ", into the same rows") +
        ", so the result depends on timing (no wait orders rows from different chips; only int8 rows added into "
        "accumulators, to_acc, combine in any order)");
  if (h->race == Hazard::Race::kArrival)
    throw std::invalid_argument(
        source.where(h->later) + ": '" + describe(later) + "' " + (h->later_writes ? "writes" : "reads") +
        (h->accumulators ? " accumulator " : " scratchpad ") + rows + " while the rows '" + describe(earlier) +
        "' (" + source.where(h->earlier) + ") " + (h->accumulators ? "adds" : "sends") +
        " there may not have arrived: chip " + std::to_string(earlier.dst_chip) +
        " runs this program too and sends them to itself" + others + ", and they are " +
        (h->accumulators ? "added" : "written") + " whenever they arrive, which only a completed ICI_WAIT counting "
        "them guarantees, so the result depends on timing (" + h->fix + " would wait for them)");
  if (h->destination)
    throw std::invalid_argument(
        source.where(h->later) + ": '" + describe(later) + "' sends rows to scratchpad " + rows + " of chip " +
        std::to_string(later.dst_chip) + ", which runs this program too, while '" + describe(earlier) + "' (" +
        source.where(h->earlier) + ") may still be " + (h->earlier_writes ? "writing" : "reading") +
        " them: the rows are written whenever they arrive, from when the send runs, and nothing makes it wait for "
        "that " + kUnitName[unit_index(earlier.op)] + " instruction to complete, so the result depends on timing (" +
        h->fix + " would wait for it)");
  if (h->accumulators) {
    const std::string adds = source.where(h->later) + ": '" + describe(later) + "' adds into accumulator " + rows +
                             " of chip " + std::to_string(later.dst_chip) + ", which runs this program too, while '" +
                             describe(earlier) + "' (" + source.where(h->earlier) + ") may still be ";
    if (h->race == Hazard::Race::kRead)
      throw std::invalid_argument(adds + "reading them: nothing makes it wait for that compute instruction to "
                                  "complete, so the result depends on timing (" + h->fix + " would wait for it)");
    throw std::invalid_argument(
        adds + "writing its results back there: a MATMUL completes when its last vector enters the array, and its "
        "results reach the accumulators ROWS + COLS cycles later, so the result depends on timing (" + h->fix +
        " would wait for them)");
  }
  throw std::invalid_argument(source.where(h->later) + ": '" + describe(later) + "' " +
                              (h->later_writes ? "writes" : "reads") + " scratchpad " + rows + " while '" +
                              describe(earlier) + "' (" + source.where(h->earlier) + ") may still be " +
                              (h->earlier_writes ? "writing" : "reading") + " them: nothing makes it wait for that " +
                              kUnitName[unit_index(earlier.op)] +
                              " instruction to complete, so the result depends on timing (" + h->fix +
                              " would wait for it)");
}

}  // namespace mxc
