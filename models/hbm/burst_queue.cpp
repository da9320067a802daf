#include "models/hbm/burst_queue.h"

namespace mxc::hbm {

BurstQueue::BurstQueue(std::uint32_t banks, bool write)
    : m_bank(banks), m_hit_set((banks + 63) / 64, 0), m_miss_set((banks + 63) / 64, 0), m_write(write) {}

void BurstQueue::set_hits(std::uint32_t bank, std::uint32_t hits) {
  Bank& b = m_bank[bank];
  m_hits = m_hits - b.hits + hits;
  b.hits = hits;
  set_bit(m_hit_set, bank, hits != 0);
  set_bit(m_miss_set, bank, hits != b.count);
}

void BurstQueue::row_opened(std::uint32_t bank, std::uint32_t row) {
  if (!m_bank[bank].count) return;  // nothing queued: no hits before or after
  std::uint32_t hits = 0;
  for (Index i = m_bank[bank].head; i != kNone; i = m_pool[i].bank_next) hits += m_pool[i].row == row;
  set_hits(bank, hits);
}

void BurstQueue::row_closed(std::uint32_t bank) {
  if (m_bank[bank].hits) set_hits(bank, 0);
}

void BurstQueue::all_closed() {
  for_each_bank(hit_banks(), [&](std::uint32_t b) {
    set_hits(b, 0);
    return true;
  });
}

}  // namespace mxc::hbm
