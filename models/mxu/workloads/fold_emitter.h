#pragma once
// Emits the folds of one or more GEMMs on the tile with the GEMM compiler's
// double buffering (models/mxu/gemm_program.cpp): the A rows and B weights
// of fold f+1 are fetched into the other buffer pair while fold f computes.
// After the last K fold of each output tile a caller-supplied epilogue emits
// what happens to the accumulators (OUTPUT, DMA_STORE, ICI_SEND, ...).
#include <cstdint>
#include <functional>
#include <vector>

#include "models/mxu/matrix_layout.h"
#include "models/mxu/program_builder.h"
#include "models/mxu/tile_geometry.h"

namespace mxc {

/// One fold: mb rows of A (columns k0..k0+kb) through the kb x nb weights at (k0, n0).
struct Fold {
  const MatrixLayout* a = nullptr;  ///< Blocked by the array's rows (K per fold).
  const MatrixLayout* b = nullptr;  ///< Blocked by the array's columns.
  std::uint32_t m0 = 0, mb = 0, n0 = 0, nb = 0, k0 = 0, kb = 0;
  bool first_k = false, last_k = false;
  /// Do not prefetch this fold's operands during the previous fold: they are
  /// written by the previous folds' epilogues (set `load_deps` there).
  bool barrier = false;
};

/// Scratchpad regions: two A buffers of mb_max rows, two weight buffers of
/// `rows` rows, one output region of mb_max rows, then `extra_rows` rows for
/// the caller (ICI tokens, receive buffers).
struct ScratchPlan {
  std::uint32_t mb_max = 0;
  std::uint32_t a_buf[2] = {0, 0};
  std::uint32_t w_buf[2] = {0, 0};
  std::uint32_t out_buf = 0;
  std::uint32_t extra = 0;  ///< First caller row.

  /// Largest mb_max that fits `tile` with `extra_rows` caller rows and at most
  /// `acc_limit` accumulator rows; throws std::invalid_argument if none does.
  static ScratchPlan make(const TileGeometry& tile, std::uint32_t extra_rows, std::uint32_t acc_limit);
};

class FoldEmitter {
 public:
  using Ref = ProgramBuilder::Ref;
  using Epilogue = std::function<void(const Fold&)>;

  FoldEmitter(ProgramBuilder& pb, const TileGeometry& tile, const ScratchPlan& plan, DType dtype)
      : m_pb(pb), m_tile(tile), m_plan(plan), m_dtype(dtype) {}

  /// Emits every fold in order, calling `epilogue` after each last-K fold's MATMUL.
  void emit(const std::vector<Fold>& folds, const Epilogue& epilogue);

  /// Set by an epilogue: dependencies of the next barrier fold's loads.
  std::vector<Ref> load_deps;

 private:
  void emit_loads(const Fold& fd, int pair, const std::vector<Ref>& extra);

  ProgramBuilder& m_pb;
  TileGeometry m_tile;
  ScratchPlan m_plan;
  DType m_dtype;
  Ref m_a_load, m_w_load;
  std::vector<Ref> m_readers[2];  // compute instructions reading each buffer pair
};

/// Appends the folds of C[m0.., n-range] = A x B over K range [k_begin, k_end),
/// output tiles of mb_max rows x `cols` columns, M blocks outer, then N, then K.
void append_folds(std::vector<Fold>& folds, const MatrixLayout& a, const MatrixLayout& b, const TileGeometry& tile,
                  std::uint32_t mb_max, std::uint32_t m_begin, std::uint32_t m_end, std::uint32_t n_begin,
                  std::uint32_t n_end, std::uint32_t k_begin, std::uint32_t k_end);

}  // namespace mxc
