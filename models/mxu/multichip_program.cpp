#include "models/mxu/multichip_program.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/mxu/workloads/fold_emitter.h"

namespace mxc {

namespace {

using Ref = ProgramBuilder::Ref;

std::uint32_t elem_bytes(DType t) { return t == DType::kBf16 ? 2 : 1; }
std::uint32_t share(std::uint32_t total, std::uint32_t parts, std::uint32_t i) {
  return static_cast<std::uint32_t>(std::uint64_t{total} * i / parts);
}

// Scratchpad rows after the GEMM buffers: a token source/sink row and a
// one-row target for the draining OUTPUT.
constexpr std::uint32_t kExtraRows = 2;

Instr token(std::uint32_t dst, const ScratchPlan& plan) {
  Instr t;
  t.op = Opcode::ICI_SEND;
  t.rows = 1;
  t.cols = 4;
  t.sp_row = static_cast<std::uint16_t>(plan.extra);
  t.remote_row = static_cast<std::uint16_t>(plan.extra);
  t.dst_chip = static_cast<std::uint8_t>(dst);
  return t;
}

Instr wait_rows(std::uint32_t rows) {
  Instr w;
  w.op = Opcode::ICI_WAIT;
  w.rows = static_cast<std::uint16_t>(rows);
  return w;
}

}  // namespace

void validate_split(const MultiChipGemm& g, const TileGeometry& t) {
  t.validate();
  const std::uint32_t P = g.chips;
  if (P == 0 || P > 256) throw std::invalid_argument("multi-chip gemm: chips must be in 1..256");
  // In 64 bits: n + cols - 1 passes 2^32 for an n the analytic model takes.
  const std::uint64_t n_blocks = (std::uint64_t{g.shape.n} + t.cols - 1) / t.cols;
  if (g.split == ChipSplit::kK) {
    if (P > g.shape.k) throw std::invalid_argument("multi-chip gemm: k split needs k >= chips");
    if (P > g.shape.m) throw std::invalid_argument("multi-chip gemm: k split needs m >= chips (one row block each)");
  } else if (P > n_blocks) {
    throw std::invalid_argument("multi-chip gemm: n split needs at least one " + std::to_string(t.cols) +
                                "-column block of C per chip: chips (" + std::to_string(P) +
                                ") must be <= ceil(n / cols) = " + std::to_string(n_blocks));
  }
}

std::uint32_t multichip_m_block(const TileGeometry& t) { return ScratchPlan::make(t, kExtraRows, t.acc_rows).mb_max; }

std::vector<ChipPlan> plan_multichip(const MultiChipGemm& g, const TileGeometry& t) {
  validate(g.shape);
  validate_split(g, t);
  const std::uint32_t P = g.chips;
  const std::uint32_t n_blocks = (g.shape.n + t.cols - 1) / t.cols;
  std::vector<ChipPlan> plans(P);
  for (std::uint32_t p = 0; p < P; ++p) {
    ChipPlan& c = plans[p];
    if (g.split == ChipSplit::kK) {
      c.k_begin = share(g.shape.k, P, p);
      c.k_end = share(g.shape.k, P, p + 1);
      c.n_begin = 0;
      c.n_end = g.shape.n;
      c.m_begin = share(g.shape.m, P, p);
      c.m_end = share(g.shape.m, P, p + 1);
      c.local = {g.shape.m, c.k_end - c.k_begin, g.shape.n, g.shape.dtype};
    } else {
      c.k_begin = 0;
      c.k_end = g.shape.k;
      c.n_begin = std::min(g.shape.n, share(n_blocks, P, p) * t.cols);
      c.n_end = std::min(g.shape.n, share(n_blocks, P, p + 1) * t.cols);
      c.m_begin = 0;
      c.m_end = g.shape.m;
      c.local = g.shape;
    }
    c.layout = place_gemm(c.local, t);
  }
  return plans;
}

void store_multichip_operands(const MultiChipGemm& g, const std::vector<ChipPlan>& plans, const GemmOperands& ops,
                              const std::vector<SparseMemory*>& memories) {
  if (memories.size() != plans.size()) throw std::invalid_argument("store_multichip_operands: one memory per chip");
  const std::uint32_t eb = elem_bytes(g.shape.dtype);
  const auto put = [&](SparseMemory& mem, const MatrixLayout& ml, std::uint32_t i, std::uint32_t j, std::uint16_t e) {
    const std::uint8_t bytes[2] = {static_cast<std::uint8_t>(e), static_cast<std::uint8_t>(e >> 8)};
    mem.write(ml.addr(i, j), std::span<const std::uint8_t>(bytes, eb));
  };
  const std::uint32_t M = g.shape.m, K = g.shape.k, N = g.shape.n;
  for (std::size_t p = 0; p < plans.size(); ++p) {
    const ChipPlan& c = plans[p];
    SparseMemory& mem = *memories[p];
    for (std::uint32_t i = 0; i < M; ++i)
      for (std::uint32_t kk = c.k_begin; kk < c.k_end; ++kk)
        put(mem, c.layout.a, i, kk - c.k_begin, ops.a[std::size_t{i} * K + kk]);
    for (std::uint32_t kk = c.k_begin; kk < c.k_end; ++kk)
      for (std::uint32_t j = c.n_begin; j < c.n_end; ++j)
        put(mem, c.layout.b, kk - c.k_begin, j, ops.b[std::size_t{kk} * N + j]);
  }
}

namespace {

// K split: every chip computes a partial of every output tile; tiles go
// owner by owner. For each tile the owner drains its array, then in
// increasing chip order hands each other chip a token and waits for that
// chip's partial rows, which arrive added into its accumulators (a fixed
// reduction order). The owner of the next row block starts only after a
// "done" token from the previous owner, so an ICI_WAIT never counts a row
// meant for a later wait.
Program compile_k_split(const MultiChipGemm& g, const std::vector<ChipPlan>& plans, std::uint32_t chip,
                        const TileGeometry& t) {
  const std::uint32_t P = g.chips;
  const ChipPlan& me = plans[chip];
  const ScratchPlan plan = ScratchPlan::make(t, kExtraRows, t.acc_rows);
  std::vector<Fold> folds;
  std::vector<std::uint32_t> owner_of;  // per fold
  for (std::uint32_t q = 0; q < P; ++q) {
    append_folds(folds, me.layout.a, me.layout.b, t, plan.mb_max, plans[q].m_begin, plans[q].m_end, 0, g.shape.n, 0,
                 me.local.k);
    owner_of.resize(folds.size(), q);
  }
  ProgramBuilder pb;
  FoldEmitter fe(pb, t, plan, g.shape.dtype);
  std::vector<Ref> out_users;  // instructions still reading the output region
  fe.emit(folds, [&](const Fold& fd) {
    const std::uint32_t q = owner_of[static_cast<std::size_t>(&fd - folds.data())];
    const bool first_of_owner = fd.m0 == plans[q].m_begin && fd.n0 == 0;
    const bool last_of_owner = fd.m0 + fd.mb >= plans[q].m_end && fd.n0 + fd.nb >= g.shape.n;
    Instr out;
    out.op = Opcode::OUTPUT;
    out.dtype = g.shape.dtype;
    out.acc_row = 0;
    if (chip == q) {
      if (first_of_owner && q > 0) pb.emit(wait_rows(1));  // "done" from the previous owner
      // A one-row OUTPUT waits for the array to drain: the accumulators hold
      // this chip's partial before any other chip may add into them.
      Instr drain = out;
      drain.rows = 1;
      drain.cols = 1;
      drain.sp_row = static_cast<std::uint16_t>(plan.extra + 1);
      Ref last = pb.emit(drain);
      for (std::uint32_t p = 0; p < P; ++p) {
        if (p == q) continue;
        pb.emit(token(p, plan), {last});
        last = pb.emit(wait_rows(fd.mb));
      }
      out.rows = static_cast<std::uint16_t>(fd.mb);
      out.cols = static_cast<std::uint16_t>(fd.nb);
      out.sp_row = static_cast<std::uint16_t>(plan.out_buf);
      std::vector<Ref> deps = out_users;
      deps.push_back(last);
      const Ref out_ref = pb.emit(out, deps);
      Instr st;
      st.op = Opcode::DMA_STORE;
      st.rows = static_cast<std::uint16_t>(fd.mb);
      st.cols = static_cast<std::uint16_t>(fd.nb * 4);
      st.sp_row = static_cast<std::uint16_t>(plan.out_buf);
      st.hbm_addr = me.layout.c.row_addr(fd.n0 / t.cols, fd.m0);
      st.hbm_stride = me.layout.c.row_pitch();
      out_users = {pb.emit(st, {out_ref})};
      if (last_of_owner && q + 1 < P) pb.emit(token(q + 1, plan), {last});
    } else {
      out.rows = static_cast<std::uint16_t>(fd.mb);
      out.cols = static_cast<std::uint16_t>(fd.nb);
      out.sp_row = static_cast<std::uint16_t>(plan.out_buf);
      const Ref out_ref = pb.emit(out, out_users);
      const Ref go = pb.emit(wait_rows(1));
      Instr send;
      send.op = Opcode::ICI_SEND;
      send.dtype = g.shape.dtype;
      send.to_acc = true;
      send.rows = static_cast<std::uint16_t>(fd.mb);
      send.cols = static_cast<std::uint16_t>(fd.nb * 4);
      send.sp_row = static_cast<std::uint16_t>(plan.out_buf);
      send.remote_row = 0;
      send.dst_chip = static_cast<std::uint8_t>(q);
      out_users = {pb.emit(send, {out_ref, go})};
    }
  });
  return pb.take();
}

// N split: each chip computes its column blocks of C and stores them; after
// a FENCE, an all-gather in rounds: in round s chip s sends its blocks, a
// chunk at a time, to every other chip, which stores them at the same
// addresses. A receiver asks for each chunk with a token (its receive buffer
// is free) and acknowledges the last; the sender then starts round s + 1 by
// a token to every other chip, so no chip can see a row of round s + 1
// before its last wait of round s.
Program compile_n_split(const MultiChipGemm& g, const std::vector<ChipPlan>& plans, std::uint32_t chip,
                        const TileGeometry& t) {
  const std::uint32_t P = g.chips;
  const ChipPlan& me = plans[chip];
  const ScratchPlan plan = ScratchPlan::make(t, kExtraRows, t.acc_rows);
  ProgramBuilder pb;
  std::vector<Fold> folds;
  append_folds(folds, me.layout.a, me.layout.b, t, plan.mb_max, 0, g.shape.m, me.n_begin, me.n_end, 0, g.shape.k);
  FoldEmitter fe(pb, t, plan, g.shape.dtype);
  std::vector<Ref> stores;
  fe.emit(folds, [&](const Fold& fd) {
    Instr out;
    out.op = Opcode::OUTPUT;
    out.dtype = g.shape.dtype;
    out.rows = static_cast<std::uint16_t>(fd.mb);
    out.cols = static_cast<std::uint16_t>(fd.nb);
    out.sp_row = static_cast<std::uint16_t>(plan.out_buf);
    const Ref out_ref = pb.emit(out, stores);
    Instr st;
    st.op = Opcode::DMA_STORE;
    st.rows = static_cast<std::uint16_t>(fd.mb);
    st.cols = static_cast<std::uint16_t>(fd.nb * 4);
    st.sp_row = static_cast<std::uint16_t>(plan.out_buf);
    st.hbm_addr = me.layout.c.row_addr(fd.n0 / t.cols, fd.m0);
    st.hbm_stride = me.layout.c.row_pitch();
    stores = {pb.emit(st, {out_ref})};
  });
  if (P == 1) return pb.take();
  Instr fence;
  fence.op = Opcode::FENCE;
  pb.emit(fence);

  const MatrixLayout& c = me.layout.c;
  const std::uint32_t send_buf = plan.a_buf[0], recv_buf = plan.a_buf[1], chunk = plan.mb_max;
  std::vector<Ref> send_users, recv_users;  // instructions still reading each buffer
  for (std::uint32_t s = 0; s < P; ++s) {
    const ChipPlan& src = plans[s];
    if (s > 0 && chip != s - 1) pb.emit(wait_rows(1));  // round s starts
    for (std::uint32_t n0 = src.n_begin; n0 < src.n_end; n0 += t.cols) {
      const std::uint32_t nb = std::min(t.cols, src.n_end - n0);
      for (std::uint32_t m0 = 0; m0 < g.shape.m; m0 += chunk) {
        const std::uint32_t rows = std::min(chunk, g.shape.m - m0);
        if (chip == s) {
          Instr ld;
          ld.op = Opcode::DMA_LOAD;
          ld.rows = static_cast<std::uint16_t>(rows);
          ld.cols = static_cast<std::uint16_t>(nb * 4);
          ld.sp_row = static_cast<std::uint16_t>(send_buf);
          ld.hbm_addr = c.row_addr(n0 / t.cols, m0);
          ld.hbm_stride = c.row_pitch();
          const Ref ld_ref = pb.emit(ld, send_users);
          const Ref tokens = pb.emit(wait_rows(P - 1));
          send_users.clear();
          for (std::uint32_t d = 0; d < P; ++d) {
            if (d == s) continue;
            Instr send;
            send.op = Opcode::ICI_SEND;
            send.rows = static_cast<std::uint16_t>(rows);
            send.cols = static_cast<std::uint16_t>(nb * 4);
            send.sp_row = static_cast<std::uint16_t>(send_buf);
            send.remote_row = static_cast<std::uint16_t>(recv_buf);
            send.dst_chip = static_cast<std::uint8_t>(d);
            send_users.push_back(pb.emit(send, {ld_ref, tokens}));
          }
        } else {
          pb.emit(token(s, plan), recv_users);
          const Ref got = pb.emit(wait_rows(rows));
          Instr st;
          st.op = Opcode::DMA_STORE;
          st.rows = static_cast<std::uint16_t>(rows);
          st.cols = static_cast<std::uint16_t>(nb * 4);
          st.sp_row = static_cast<std::uint16_t>(recv_buf);
          st.hbm_addr = c.row_addr(n0 / t.cols, m0);
          st.hbm_stride = c.row_pitch();
          recv_users = {pb.emit(st, {got})};
        }
      }
    }
    if (chip == s) {
      pb.emit(wait_rows(P - 1));  // every receiver has its last chunk
      if (s + 1 < P)
        for (std::uint32_t d = 0; d < P; ++d)
          if (d != s) pb.emit(token(d, plan));
    } else {
      pb.emit(token(s, plan));
    }
  }
  return pb.take();
}

}  // namespace

std::vector<Program> compile_multichip(const MultiChipGemm& g, const std::vector<ChipPlan>& plans,
                                       const TileGeometry& t) {
  if (plans.size() != g.chips) throw std::invalid_argument("compile_multichip: one plan per chip");
  std::vector<Program> programs;
  for (std::uint32_t c = 0; c < g.chips; ++c)
    programs.push_back(g.split == ChipSplit::kK ? compile_k_split(g, plans, c, t) : compile_n_split(g, plans, c, t));
  return programs;
}

std::uint64_t ici_rows_sent(const Program& program) {
  std::uint64_t rows = 0;
  for (const Instr& in : program)
    if (in.op == Opcode::ICI_SEND) rows += in.rows;
  return rows;
}

}  // namespace mxc
