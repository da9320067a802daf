#pragma once
// A GEMM split across chips, one program per chip (docs/workloads.md):
// - K split: chip p multiplies A[:, K_p] by B[K_p, :]; the partial sums are
//   reduced over ICI into the owner of each row block (ICI_SEND to_acc adds
//   into the owner's accumulators), so chip q ends with rows
//   [q*M/P, (q+1)*M/P) of C in its HBM.
// - N split: chip q computes the columns of C in its share of C's column
//   blocks, then an all-gather over ICI leaves the whole C in every chip's HBM.
// Each chip has its own HBM; its operands sit at the same addresses in each.
#include <cstdint>
#include <vector>

#include "models/core/sparse_memory.h"
#include "models/mxu/gemm_program.h"

namespace mxc {

enum class ChipSplit : std::uint8_t { kK, kN };

struct MultiChipGemm {
  GemmShape shape;  ///< The whole GEMM.
  std::uint32_t chips = 2;
  ChipSplit split = ChipSplit::kK;
};

/// What one chip computes and holds.
struct ChipPlan {
  GemmShape local;     ///< This chip's GEMM: M x K_p x N (K split) or M x K x N (N split).
  GemmLayout layout;   ///< Of `local` in this chip's HBM; C is always the whole M x N.
  std::uint32_t k_begin = 0, k_end = 0;  ///< Global K columns of A this chip holds.
  std::uint32_t n_begin = 0, n_end = 0;  ///< Columns of C this chip computes.
  std::uint32_t m_begin = 0, m_end = 0;  ///< Rows of C this chip holds at the end.
};

/// Throws std::invalid_argument unless every chip gets a share: a K split
/// needs k >= chips and m >= chips (a row block of C per owner), an N split a
/// column block of C per chip (chips <= ceil(n / cols)). The shape's own
/// limits are validate(GemmShape)'s.
void validate_split(const MultiChipGemm& g, const TileGeometry& tile);
/// Rows of A per fold the multi-chip compiler uses on `tile`: as
/// gemm_m_block, less the scratchpad rows its protocols keep for tokens.
std::uint32_t multichip_m_block(const TileGeometry& tile);
/// Throws std::invalid_argument naming the bad field.
std::vector<ChipPlan> plan_multichip(const MultiChipGemm& g, const TileGeometry& tile);
/// Writes each chip's share of A and B (row-major whole-GEMM operands) into its memory.
void store_multichip_operands(const MultiChipGemm& g, const std::vector<ChipPlan>& plans, const GemmOperands& ops,
                              const std::vector<SparseMemory*>& memories);
/// One program per chip.
std::vector<Program> compile_multichip(const MultiChipGemm& g, const std::vector<ChipPlan>& plans,
                                       const TileGeometry& tile);
/// ICI rows chip `c`'s program sends (its ICI_SEND rows summed).
std::uint64_t ici_rows_sent(const Program& program);

}  // namespace mxc
