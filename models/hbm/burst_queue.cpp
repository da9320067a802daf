#include "models/hbm/burst_queue.h"

#include <stdexcept>

namespace mxc::hbm {

void BurstQueue::overflow() {
  throw std::overflow_error("HBM controller queue: more than 2^48 bursts in one run (the scheduler's ages would wrap)");
}

BurstQueue::BurstQueue(std::uint32_t banks, bool write)
    : m_bank(banks), m_hit_set((banks + 63) / 64, 0), m_miss_set((banks + 63) / 64, 0), m_write(write) {}

void BurstQueue::set_hits(std::uint32_t bank, std::uint32_t hits) {
  Bank& b = m_bank[bank];
  m_hits = m_hits - b.hits + hits;
  b.hits = hits;
  set_bit(m_hit_set, bank, hits != 0);
  set_bit(m_miss_set, bank, hits != b.count);
}

void BurstQueue::recount_hits(std::uint32_t bank, std::uint32_t row) {
  Bank& b = m_bank[bank];
  if (!b.count) return;  // nothing queued: no hits before or after
  std::uint32_t hits = 0;
  Index first = kNone;
  for (Index i = b.head; i != kNone; i = m_pool[i].bank_next) {
    const bool hit = m_pool[i].row == row;
    if (hit && !hits) first = i;
    hits += hit ? m_pool[i].run : 0;
  }
  set_hits(bank, hits);
  set_candidate(b, hits ? first : b.head);
}

void BurstQueue::clear_hits(std::uint32_t bank) {
  Bank& b = m_bank[bank];
  if (b.hits) {
    set_hits(bank, 0);
    set_candidate(b, b.head);
  }
}

void BurstQueue::all_closed() {
  for_each_bank(hit_banks(), [&](std::uint32_t b) {
    clear_hits(b);
    return true;
  });
}

}  // namespace mxc::hbm
