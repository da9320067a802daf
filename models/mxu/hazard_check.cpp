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

namespace {

/// Where data that depends on the order rows arrive in comes from: a send of
/// this program (`chip` unset) or of another chip's, none when `send` is kNoSend.
struct From {
  std::size_t send = kNoSend;
  std::optional<std::uint32_t> chip;
  bool any() const { return send != kNoSend; }
};

/// What the other chips send one chip, their programs known: the rows in
/// all, and per scratchpad and accumulator row of it which of their sends
/// write there.
struct Inflow {
  struct Row {
    std::uint32_t chips = 0;  ///< Other chips writing it: 0, 1 or 2 (two or more).
    std::uint32_t chip = 0;   ///< The first of them.
    /// Accumulators: the other chips adding bf16 rows there (0, 1 or 2), the first of them.
    std::uint32_t bf16_chips = 0, bf16_chip = 0;
    From first;               ///< The first send writing it; one carrying order-dependent data if any.
    bool tainted = false;     ///< Some send writing it carries data that depends on an order of arrival.
  };
  std::uint64_t rows = 0;
  std::vector<Row> sp, acc;
};

/// Adds the rows send `s` (instruction `i` of chip `from`'s program; carrying order-dependent data
/// when `dirty`) lands on its destination, from `copies` chips (every chip but the destination when
/// every chip runs the program, `from` one of them), to what that chip is sent.
void add_send(Inflow& in, const Instr& s, std::size_t i, std::uint32_t from, std::uint64_t copies, bool dirty) {
  in.rows += copies * s.rows;
  std::vector<Inflow::Row>& rows = s.to_acc ? in.acc : in.sp;
  if (rows.size() < std::size_t{s.remote_row} + s.rows) rows.resize(std::size_t{s.remote_row} + s.rows);
  // Distinct chips, counted to two.
  const auto count = [&](std::uint32_t& n, std::uint32_t& first) {
    if (n == 0) first = from;
    if (copies > 1 || (n == 1 && first != from)) n = 2;
    else if (n == 0) n = 1;
  };
  for (std::uint32_t k = 0; k < s.rows; ++k) {
    Inflow::Row& r = rows[s.remote_row + k];
    if (r.chips == 0) r.first = From{i, from};
    count(r.chips, r.chip);
    if (s.to_acc && s.dtype == DType::kBf16) count(r.bf16_chips, r.bf16_chip);
    if (dirty && !r.tainted) r.first = From{i, from};
    r.tainted = r.tainted || dirty;
  }
}

/// Every chip's program and what each chip is sent: `same`, one program every chip runs
/// (`programs[0]`, `tainted` of it alone).
struct Among {
  std::vector<const Program*> programs;
  bool same = false;
  std::vector<std::vector<bool>> tainted;  ///< Per chip, per instruction: a send carrying order-dependent data.
  std::vector<Inflow> inflow;              ///< Per chip (the first 256, those a dst_chip can name).
  void work_out_inflow() {
    inflow.assign(std::min<std::size_t>(programs.size(), 256), Inflow{});
    for (std::uint32_t c = 0; c < (same ? 1 : programs.size()); ++c) {
      const Program& p = *programs[c];
      for (std::size_t i = 0; i < p.size(); ++i) {
        const Instr& s = p[i];
        if (s.op != Opcode::ICI_SEND || s.dst_chip >= inflow.size() || (!same && s.dst_chip == c)) continue;
        if (same)  // from each other chip
          add_send(inflow[s.dst_chip], s, i, s.dst_chip == 0 ? 1 : 0, programs.size() - 1, tainted[0][i]);
        else
          add_send(inflow[s.dst_chip], s, i, c, 1, tainted[c][i]);
      }
    }
  }
};

/// What a scan of one program knows of the others.
struct Scan {
  std::uint32_t chips = 1;
  /// Unset: every chip runs the program, and its sends to each chip are to itself.
  std::optional<std::uint32_t> chip;
  /// Every chip's program (`chip` unset: this one on every chip), and per chip what the others send
  /// it. Empty: not known.
  std::vector<const Program*> programs;
  std::vector<Inflow> inflow;
  /// Filled with, per instruction, whether it is a send carrying order-dependent data.
  std::vector<bool>* tainted_sends = nullptr;
  /// Go on past hazards (to fill tainted_sends).
  bool keep_going = false;
};

std::optional<Hazard> scan(const Program& program, const Scan& run_on) {
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
  const bool known = !run_on.inflow.empty();
  if (!known && run_on.chips > 1) from_others.fill(kUnknown);
  for (std::size_t c = 0; c < std::min<std::size_t>(run_on.inflow.size(), 256); ++c)
    from_others[c] = run_on.inflow[c].rows;
  std::vector<std::uint64_t> waited;  // per ICI ordinal: the rows the ICI_WAITs up to it count
  std::vector<Inbound> inbound;
  // The rows ICI_WAITs must count in all to count the rows of `s` up to row
  // `end` of its chip's memory (they arrive in order), or all of them: the
  // others' first. kUnknown when what the others send is not known.
  const auto rows_needed = [&](const Inbound& s, std::optional<std::uint32_t> end = {}) {
    const std::uint64_t others = from_others[s.chip];
    if (others == kUnknown) return kUnknown;
    const Instr& send = program[s.send];
    return others + (end ? s.through - send.rows + (*end - send.remote_row) : s.through);
  };
  // Whether ICI_WAITs counting `rows` in all count them.
  const auto counted = [&](std::uint64_t rows, const Inbound& s, std::optional<std::uint32_t> end = {}) {
    const std::uint64_t need = rows_needed(s, end);
    return need != kUnknown && rows >= need;
  };
  // What makes an instruction wait for the rows of `s` up to row `end`: the
  // first ICI_WAIT so far that counts them (for another unit's instruction,
  // through wait_ici), or one still to be written before it.
  const auto wait_for_arrival = [&](const Inbound& s, std::uint32_t end, bool ici_unit) -> std::string {
    for (std::size_t o = 0; o < waited.size(); ++o)
      if (counted(waited[o], s, end))
        return std::string(kWaitField[2]) + "=" + std::to_string(waited.size() - o - 1);
    const std::string and_wait = ici_unit ? "" : " and wait_ici=0";
    // ICI_WAITs before it count too few: how many more rows, when what the others send is known.
    const std::uint64_t so_far = waited.empty() ? 0 : waited.back();
    if (const std::uint64_t need = rows_needed(s, end); so_far > 0 && need != kUnknown)
      return "an ici_wait counting " + std::to_string(need - so_far) + " more row" + (need - so_far == 1 ? "" : "s") +
             " before it" + and_wait;
    return "an ici_wait counting them before it" + and_wait;
  };
  // Rows of a chip that sends of more than one chip write (every chip's copy
  // of a send when every chip runs the program) arrive in an order nothing
  // fixes. What depends on that order (a plain send's scratchpad rows;
  // accumulator rows bf16 rows were added into, whose floating-point sum
  // does) is followed through what the program computes from it, per
  // scratchpad row, accumulator row and weight buffer: the send it comes
  // from, or none. Only memory is compared, so only a store of such rows
  // makes the result depend on timing. Every chip running the program, a
  // send's copies go with the chip's own: its rows hold it from its send.
  // With a program per chip, rows other chips' sends make so hold it from
  // the start, whatever the chip writes there, until it knows all their
  // rows arrived (its completed ICI_WAITs count every row the others send
  // it besides all of its own); its own send into rows another chip writes
  // too makes them so from the send.
  const bool copies = known;
  std::vector<From> sp_from, acc_from;
  std::array<From, 2> buf_from{};
  std::vector<From> sticky_sp, sticky_acc;  // rows other chips make order-dependent, by the send
  const auto at = [](const std::vector<From>& rows, std::size_t r) { return r < rows.size() ? rows[r] : From{}; };
  const auto set = [&](bool acc, std::uint32_t first, std::uint32_t n, const From& from) {
    std::vector<From>& rows = acc ? acc_from : sp_from;
    const std::vector<From>& sticky = acc ? sticky_acc : sticky_sp;
    if (rows.size() < std::size_t{first} + n) rows.resize(std::size_t{first} + n);
    for (std::size_t r = first; r < std::size_t{first} + n; ++r) rows[r] = from.any() ? from : at(sticky, r);
  };
  // The first row of [first, first + n) that depends on the order, if any.
  const auto first_from = [&](const std::vector<From>& rows, std::uint32_t first, std::uint32_t n) {
    for (std::size_t r = first; r < std::size_t{first} + n; ++r)
      if (at(rows, r).any()) return r;
    return std::size_t{kNoSend};
  };
  // A DMA_STORE of scratchpad rows whose content depends on the order copies of a send arrive
  // in (kCopies; only with every chip's program known, `copies`).
  const auto store_copies_race = [&](std::size_t i) -> std::optional<Hazard> {
    const Instr& in = program[i];
    if (!copies || in.op != Opcode::DMA_STORE) return std::nullopt;
    const std::size_t r = first_from(sp_from, in.sp_row, in.rows);
    if (r == kNoSend) return std::nullopt;
    const auto same = [](const From& a, const From& b) { return a.send == b.send && a.chip == b.chip; };
    std::size_t end = r;
    while (end < std::size_t{in.sp_row} + in.rows && same(at(sp_from, end), sp_from[r])) ++end;
    const From from = sp_from[r];
    Hazard h = race_over(from.send, i, static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(end));
    h.race = Hazard::Race::kCopies;
    h.earlier_chip = from.chip;
    h.accumulators = (from.chip ? *run_on.programs[*from.chip] : program)[from.send].to_acc;
    return h;
  };
  // Whether another chip writes row r (`rows`: the inflow's scratchpad or accumulator rows) of chip `dst`.
  const auto foreign = [&](std::uint8_t dst, bool acc, std::size_t r) -> const Inflow::Row* {
    if (dst >= run_on.inflow.size()) return nullptr;
    const std::vector<Inflow::Row>& rows = acc ? run_on.inflow[dst].acc : run_on.inflow[dst].sp;
    return r < rows.size() && rows[r].chips != 0 ? &rows[r] : nullptr;
  };
  bool others_arrived = !(copies && run_on.chip);  // with a program per chip: every row the others send
  if (!others_arrived) {
    // Rows sends of two other chips write, or one carrying order-dependent data.
    const Inflow& mine = run_on.inflow[*run_on.chip];
    for (const bool acc : {false, true}) {
      const std::vector<Inflow::Row>& rows = acc ? mine.acc : mine.sp;
      std::vector<From>& sticky = acc ? sticky_acc : sticky_sp;
      sticky.resize(rows.size());
      for (std::size_t r = 0; r < rows.size(); ++r) {
        const Inflow::Row& w = rows[r];
        if (w.tainted || (acc ? w.bf16_chips > 1 : w.chips > 1)) sticky[r] = w.first;
      }
      (acc ? acc_from : sp_from) = sticky;
    }
  }
  if (run_on.tainted_sends) run_on.tainted_sends->assign(program.size(), false);
  std::optional<Hazard> first_hazard;
  // The first hazard found; true when the scan stops there.
  const auto found = [&](const Hazard& h) {
    if (!first_hazard) first_hazard = h;
    return !run_on.keep_going;
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
    if (!others_arrived) {
      // The ICI unit runs its instructions in order: when one of its runs, every earlier ICI_WAIT has completed.
      const std::uint64_t counted_now = u == 2 ? (waited.empty() ? 0 : waited.back()) : rows_waited;
      const std::uint8_t me = static_cast<std::uint8_t>(*run_on.chip);
      if (counted_now >= from_others[me] + sent_itself[me]) {
        others_arrived = true;
        sticky_sp.clear();
        sticky_acc.clear();
      }
    }
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
        if (found(h)) return first_hazard;
        break;
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
        if (found(h)) return first_hazard;
        break;
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
        if (found(h)) return first_hazard;
        break;
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
        // Rows whose content hangs on the order copies arrive in: no wait fixes that, and a
        // wait the arrival race asks for would only meet it.
        if (in.op == Opcode::DMA_STORE)
          if (const auto c = store_copies_race(i)) h = *c;
        if (found(h)) return first_hazard;
        break;
      }
      if (const auto h = race_with_other_units(i, mine); h && found(*h)) return first_hazard;
    }
    // The rows a chip sends itself write its scratchpad when they arrive, as
    // soon as the send runs: other units' instructions still using them race.
    if (in.op == Opcode::ICI_SEND && !in.to_acc && to_itself(in))
      if (auto h = race_with_other_units(i, RowUse{in.remote_row, in.rows, true})) {
        h->destination = true;
        if (found(*h)) return first_hazard;
      }
    if (copies) {
      const auto source_of = [&](std::uint32_t first, std::uint32_t n) {
        const std::size_t r = first_from(sp_from, first, n);
        return r == kNoSend ? From{} : sp_from[r];
      };
      switch (in.op) {
        case Opcode::DMA_STORE:
          if (const auto h = store_copies_race(i); h && found(*h)) return first_hazard;
          break;
        case Opcode::DMA_LOAD: set(false, in.sp_row, in.rows, From{}); break;
        case Opcode::LOAD_WEIGHTS: buf_from[in.buf & 1] = source_of(in.sp_row, in.rows); break;
        case Opcode::MATMUL: {
          From from = source_of(in.sp_row, in.rows);
          if (!from.any()) from = buf_from[in.buf & 1];
          if (from.any() || !in.accumulate) set(true, in.acc_row, in.rows, from);
          break;
        }
        case Opcode::OUTPUT:
          for (std::uint32_t k = 0; k < in.rows; ++k) set(false, in.sp_row + k, 1, at(acc_from, in.acc_row + k));
          break;
        case Opcode::ICI_SEND: {
          const From data = source_of(in.sp_row, in.rows);
          if (run_on.tainted_sends && data.any()) (*run_on.tainted_sends)[i] = true;
          if (!to_itself(in)) break;
          // Rows another chip writes too (plain rows; bf16 rows another chip adds there too): from
          // this send on, what they hold depends on the order. Else this chip's own rows, which
          // arrive in order: they hold what was sent. int8 sums do not depend on the order, what
          // was added may. (Another chip's bf16 rows landing on this chip's int8 sums, as any of its
          // rows landing on rows this chip uses, are the programs' to order.)
          for (std::uint32_t k = 0; k < in.rows; ++k) {
            const std::size_t r = std::size_t{in.remote_row} + k;
            const Inflow::Row* other = foreign(in.dst_chip, in.to_acc, r);
            const auto row = static_cast<std::uint32_t>(r);
            if (!in.to_acc) {
              set(false, row, 1, other ? From{i, std::nullopt} : data);
            } else if (in.dtype == DType::kBf16) {
              set(true, row, 1, other && other->bf16_chips ? From{i, std::nullopt} : data);
            } else if (data.any()) {
              set(true, row, 1, data);
            } else if (run_on.chip && other && other->tainted) {  // every chip's copy goes with its own
              set(true, row, 1, other->first);
            }
          }
          break;
        }
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
  return first_hazard;
}

/// A scan of chip `chip`'s program (every chip's when unset) among `among`'s.
Scan scan_among(const Among& among, std::optional<std::uint32_t> chip) {
  Scan s;
  s.chips = static_cast<std::uint32_t>(among.programs.size());
  s.chip = chip;
  s.programs = among.programs;
  s.inflow = among.inflow;
  return s;
}

/// `programs` (one every chip runs when `same`) with which of their sends carry order-dependent
/// data, which depends on what they are sent: worked out until nothing changes (a send only ever
/// becomes one).
Among settle(std::vector<const Program*> programs, bool same) {
  Among among;
  among.programs = std::move(programs);
  among.same = same;
  for (std::size_t c = 0; c < (same ? 1 : among.programs.size()); ++c)
    among.tainted.emplace_back(among.programs[c]->size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    among.work_out_inflow();
    for (std::uint32_t c = 0; c < among.tainted.size(); ++c) {
      Scan s = scan_among(among, same ? std::nullopt : std::optional<std::uint32_t>(c));
      std::vector<bool> sends;
      s.tainted_sends = &sends;
      s.keep_going = true;
      scan(*among.programs[c], s);
      if (sends != among.tainted[c]) among.tainted[c] = std::move(sends), changed = true;
    }
  }
  return among;
}

}  // namespace

std::optional<Hazard> find_hazard(const Program& program, const RunOn& run_on) {
  Scan alone;  // what the others send is not known, or there are none
  alone.chips = run_on.chips;
  alone.chip = run_on.chip;
  if (run_on.chip && !run_on.programs) return scan(program, alone);
  // Every chip's program: this one on every chip, or each its own.
  std::vector<const Program*> programs;
  if (run_on.programs)
    for (const Program& p : *run_on.programs) programs.push_back(&p);
  else
    programs.assign(run_on.chips, &program);
  if (programs.size() < 2) return scan(program, alone);
  return scan(program, scan_among(settle(std::move(programs), !run_on.chip), run_on.chip));
}

namespace {

/// How a message names the chip a program runs on and what the others send it.
struct Runs {
  std::uint32_t chips = 1;
  /// Per-chip programs: the program's chip, and every chip's program's source.
  std::optional<std::uint32_t> chip;
  const std::vector<Program>* programs = nullptr;
  const std::vector<ProgramSource>* sources = nullptr;
  std::uint64_t from_others = 0;  ///< Per-chip programs: the rows the others send the chip.
};

std::string hazard_message(const Hazard& h, const Program& program, const ProgramSource& source, const Runs& runs) {
  const Instr& later = program[h.later];
  const std::uint32_t chips = runs.chips;
  const bool own = !runs.chip;  // every chip runs this program
  const std::string rows = h.first_row == h.last_row
                               ? "row " + std::to_string(h.first_row)
                               : "rows " + std::to_string(h.first_row) + ".." + std::to_string(h.last_row);
  if (h.race == Hazard::Race::kCopies && !own) {
    const std::uint32_t at = h.earlier_chip.value_or(*runs.chip);
    const ProgramSource& where = (*runs.sources)[at];
    const Instr& send = (*runs.programs)[at][h.earlier];
    const bool elsewhere = h.earlier_chip.has_value();
    return source.where(h.later) + ": '" + describe(later) + "' stores scratchpad " + rows + ", whose data comes from "
           "the rows " + (elsewhere ? "chip " + std::to_string(at) + "'s " : std::string()) + "'" + describe(send) +
           "' (" + where.where(h.earlier) + ") " + (h.accumulators ? "adds" : "sends") + " to chip " +
           std::to_string(send.dst_chip) + ": what they hold there depends on the order in which rows of more " +
           "than one chip " + (h.accumulators ? "are added into the same accumulator rows (a floating-point sum of "
                                                "bf16 rows does)"
                                              : "land on the same rows") +
           ", which nothing fixes, so the result depends on timing (no wait orders rows from different chips; only "
           "int8 rows added into accumulators, to_acc, combine in any order)";
  }
  const Instr& earlier = program[h.earlier];
  // On several chips the others send chip dst_chip rows too, which an ICI_WAIT may count first:
  // as many when every chip runs the file, else what their files send it.
  const std::string others =
      !own ? (runs.from_others == 0 ? ""
                                    : " (and the other chips send it " + std::to_string(runs.from_others) +
                                          " rows, which may be counted first)")
      : chips < 2  ? ""
      : chips == 2 ? " (and the other chip sends it as many rows, which may be counted first)"
                   : " (and the other " + std::to_string(chips - 1) +
                         " chips send it as many rows each, which may be counted first)";
  // The chip an ICI_SEND sends to itself.
  const std::string runs_it = own ? ", which runs this program too," : " (itself),";
  if (h.race == Hazard::Race::kCopies)
    return source.where(h.later) + ": '" + describe(later) + "' stores scratchpad " + rows + ", whose data on chip " +
           std::to_string(earlier.dst_chip) + " comes from the rows '" + describe(earlier) + "' (" +
           source.where(h.earlier) + ") " + (h.accumulators ? "adds" : "sends") + " from each of the " +
           std::to_string(chips) + " chips running this program: the copies arrive in an order nothing fixes" +
           (h.accumulators ? ", and a floating-point sum of bf16 rows depends on it" : ", into the same rows") +
           ", so the result depends on timing (no wait orders rows from different chips; only int8 rows added into "
           "accumulators, to_acc, combine in any order)";
  if (h.race == Hazard::Race::kArrival)
    return source.where(h.later) + ": '" + describe(later) + "' " + (h.later_writes ? "writes" : "reads") +
           (h.accumulators ? " accumulator " : " scratchpad ") + rows + " while the rows '" + describe(earlier) +
           "' (" + source.where(h.earlier) + ") " + (h.accumulators ? "adds" : "sends") +
           " there may not have arrived: chip " + std::to_string(earlier.dst_chip) +
           (own ? " runs this program too and sends them to itself" : " sends them to itself") + others +
           ", and they are " + (h.accumulators ? "added" : "written") +
           " whenever they arrive, which only a completed ICI_WAIT counting them guarantees, so the result depends "
           "on timing (" + h.fix + " would wait for them)";
  if (h.destination)
    return source.where(h.later) + ": '" + describe(later) + "' sends rows to scratchpad " + rows + " of chip " +
           std::to_string(later.dst_chip) + runs_it + " while '" + describe(earlier) + "' (" +
           source.where(h.earlier) + ") may still be " + (h.earlier_writes ? "writing" : "reading") +
           " them: the rows are written whenever they arrive, from when the send runs, and nothing makes it wait for "
           "that " + kUnitName[unit_index(earlier.op)] + " instruction to complete, so the result depends on timing (" +
           h.fix + " would wait for it)";
  if (h.accumulators) {
    const std::string adds = source.where(h.later) + ": '" + describe(later) + "' adds into accumulator " + rows +
                             " of chip " + std::to_string(later.dst_chip) + runs_it + " while '" + describe(earlier) +
                             "' (" + source.where(h.earlier) + ") may still be ";
    if (h.race == Hazard::Race::kRead)
      return adds + "reading them: nothing makes it wait for that compute instruction to complete, so the result "
             "depends on timing (" + h.fix + " would wait for it)";
    return adds + "writing its results back there: a MATMUL completes when its last vector enters the array, and its "
           "results reach the accumulators ROWS + COLS cycles later, so the result depends on timing (" + h.fix +
           " would wait for them)";
  }
  return source.where(h.later) + ": '" + describe(later) + "' " + (h.later_writes ? "writes" : "reads") +
         " scratchpad " + rows + " while '" + describe(earlier) + "' (" + source.where(h.earlier) +
         ") may still be " + (h.earlier_writes ? "writing" : "reading") + " them: nothing makes it wait for that " +
         kUnitName[unit_index(earlier.op)] + " instruction to complete, so the result depends on timing (" + h.fix +
         " would wait for it)";
}

}  // namespace

void check_hazards(const Program& program, const ProgramSource& source, std::uint32_t chips) {
  if (const std::optional<Hazard> h = find_hazard(program, RunOn{chips, std::nullopt}))
    throw std::invalid_argument(hazard_message(*h, program, source, Runs{chips, std::nullopt, nullptr, nullptr, 0}));
}

void check_hazards(const std::vector<Program>& programs, const std::vector<ProgramSource>& sources) {
  const auto chips = static_cast<std::uint32_t>(programs.size());
  if (chips < 2) {
    if (chips == 1) check_hazards(programs[0], sources[0], 1);
    return;
  }
  std::vector<const Program*> all;
  for (const Program& p : programs) all.push_back(&p);
  const Among among = settle(std::move(all), false);
  for (std::uint32_t c = 0; c < chips; ++c) {
    const std::optional<Hazard> h = scan(programs[c], scan_among(among, c));
    if (!h) continue;
    Runs runs{chips, c, &programs, &sources, 0};
    for (std::uint32_t b = 0; b < chips; ++b)
      if (b != c)
        for (const Instr& in : programs[b])
          if (in.op == Opcode::ICI_SEND && in.dst_chip == c) runs.from_others += in.rows;
    throw std::invalid_argument(hazard_message(*h, programs[c], sources[c], runs));
  }
}

}  // namespace mxc
