#pragma once
// A workload that exercises the fabric: tile t of chip c sends `rows` rows to
// tile t of the next chip and stores the rows it receives.
#include <cstdint>
#include <sstream>
#include <vector>

#include "cosim/system_config.h"
#include "cosim/workload.h"
#include "models/core/sparse_memory.h"
#include "models/mxu/assembler.h"

namespace mxc::transport::testing {

inline Workload ring_exchange(const SystemConfig& cfg, std::uint32_t rows) {
  Workload w;
  w.description = "ici ring exchange";
  for (std::uint32_t c = 0; c < cfg.chips; ++c) {
    SparseMemory image;
    for (std::uint32_t r = 0; r < rows; ++r) {
      std::vector<std::uint8_t> row(cfg.cols);
      for (std::size_t i = 0; i < row.size(); ++i) row[i] = static_cast<std::uint8_t>(16 * c + 4 * r + i);
      image.write(0x1000 + 64 * r, row);
    }
    w.images.push_back(std::move(image));
    std::ostringstream text;
    text << "dma_load rows=" << rows << " cols=" << cfg.cols << " sp_row=0 hbm_addr=0x1000 hbm_stride=64\n"
         << "ici_send rows=" << rows << " cols=" << cfg.cols << " sp_row=0 dst_chip=" << (c + 1) % cfg.chips
         << " remote_row=" << rows << " wait_dma=0\n"
         << "ici_wait rows=" << rows << "\n"
         << "dma_store rows=" << rows << " cols=" << cfg.cols << " sp_row=" << rows
         << " hbm_addr=0x4000 hbm_stride=64 wait_ici=0\nfence\n";
    std::vector<Program> progs;
    for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t) {
      std::istringstream in(text.str());
      progs.push_back(parse_program(in, "ring_exchange.s"));
    }
    w.programs.push_back(std::move(progs));
    w.regions.emplace_back();
  }
  return w;
}

}  // namespace mxc::transport::testing
