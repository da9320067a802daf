#pragma once
// A controller queue (one direction) of bursts, kept for a scheduler that
// visits banks rather than every burst: the entries are linked in arrival
// order and, per bank, in arrival order too; per bank it counts the queued
// bursts and those that hit the bank's open row, with bit sets of the banks
// that have hits and of those that have misses. The controller reports row
// opens and closes so the hit counts stay current.
//
// An entry holds a run of a request's bursts to consecutive columns of one
// row (QueueEntry): they arrive together, share every command but their
// column commands, and follow each other in age, so the queue behaves as
// with one entry per burst, at a fraction of the entries to link, walk and
// unlink (a 256 B request is four runs of two on the default mappings).
// Sizes and counts are in bursts.
#include <cstdint>
#include <span>
#include <vector>

#include "models/hbm/bank_set.h"
#include "models/hbm/queue_entry.h"

namespace mxc::hbm {

class BurstQueue {
 public:
  using Index = std::uint32_t;
  static constexpr Index kNone = ~Index{0};

  /// A queue of reads, or of writes (`write`).
  explicit BurstQueue(std::uint32_t banks, bool write = false);

  std::size_t size() const { return m_size; }
  bool empty() const { return m_size == 0; }
  bool write() const { return m_write; }
  QueueEntry& operator[](Index i) { return m_pool[i]; }
  const QueueEntry& operator[](Index i) const { return m_pool[i]; }
  /// Younger bursts served before the oldest one (saturating): only the
  /// oldest is ever counted, so the count is the queue's and restarts at 0
  /// whenever the oldest burst changes.
  std::uint16_t front_bypassed() const { return m_front_bypassed; }
  void bypass_front() { m_front_bypassed += m_front_bypassed < 0xffff; }
  /// The oldest burst, and each burst's next younger one (kNone at the end).
  Index front() const { return m_head; }
  Index back() const { return m_tail; }
  Index next(Index i) const { return m_pool[i].next; }
  /// The same among the bursts of one bank.
  Index bank_front(std::uint32_t bank) const { return m_bank[bank].head; }
  Index bank_next(Index i) const { return m_pool[i].bank_next; }
  /// The burst of a bank the scheduler considers: its oldest row hit, or
  /// its oldest burst when none hits (that one misses). Kept current with
  /// its arrival and age, so the scheduler's bank scans read one small
  /// record per bank and no queue entry.
  struct Candidate {
    Index index = kNone;  ///< kNone: the bank has no bursts.
    std::uint64_t arrival = 0;
    /// order_of(seq, bank): compares ages and names the bank.
    std::uint64_t order = 0;
  };
  /// A burst's age and bank in one word, (seq << 16) | bank: a smaller
  /// value is an older burst (no two bursts of a queue share a seq), and
  /// the bank comes back out of the low bits (organisations have at most
  /// 65 535 banks; the config loader checks).
  static std::uint64_t order_of(std::uint64_t seq, std::uint32_t bank) { return seq << 16 | bank; }
  static std::uint32_t bank_of_order(std::uint64_t order) { return static_cast<std::uint32_t>(order & 0xffff); }
  /// Bursts a queue may take in its lifetime: their seqs fit order_of.
  static constexpr std::uint64_t kMaxBursts = std::uint64_t{1} << 48;
  const Candidate& candidate(std::uint32_t bank) const { return m_bank[bank].cand; }

  /// Queued bursts that hit `bank`'s open row, and over all banks.
  std::uint32_t hits(std::uint32_t bank) const { return m_bank[bank].hits; }
  std::size_t total_hits() const { return m_hits; }
  /// Bank sets (bank_set.h): banks with queued row hits, banks with
  /// queued bursts that miss.
  std::span<const std::uint64_t> hit_banks() const { return m_hit_set; }
  std::span<const std::uint64_t> miss_banks() const { return m_miss_set; }

  /// The arrival a burst offered with `arrival` is queued with: raised to
  /// the last queued burst's, so arrivals never decrease along the queue.
  std::uint64_t queued_arrival(std::uint64_t arrival) const {
    return m_tail != kNone && m_pool[m_tail].arrival > arrival ? m_pool[m_tail].arrival : arrival;
  }
  /// Appends a run of `bursts` bursts (`hit`: they hit their bank's open
  /// row) and returns its entry's index, for the caller to fill in the
  /// fields not given here (`col` is the first burst's). Its arrival is
  /// raised to the previous entry's, so arrivals never decrease along the
  /// queue.
  Index push_back(std::uint32_t bank, std::uint32_t row, std::uint64_t arrival, bool hit, std::uint16_t bursts = 1);
  /// Removes the oldest burst of entry i, an arrived row hit (column
  /// commands serve only those); the entry goes with its last burst. The
  /// next burst of its run takes the entry over as a burst just queued
  /// would be: no row outcome yet, waiting since its arrival.
  void erase_hit(Index i);
  /// Bank `bank` opened `row`, closed its row, or every bank closed.
  /// The size is tested inline first: an empty queue (often the other
  /// direction's) has nothing to recount, and its per-bank records stay
  /// out of the cache.
  void row_opened(std::uint32_t bank, std::uint32_t row) {
    if (m_size) recount_hits(bank, row);
  }
  void row_closed(std::uint32_t bank) {
    if (m_size) clear_hits(bank);
  }
  void all_closed();

  /// Arrival of the oldest burst that has not arrived by `now`, or
  /// ~0 when every burst has; `now` must not decrease from call to call.
  std::uint64_t first_pending_arrival(std::uint64_t now) {
    while (m_pending != kNone && m_pool[m_pending].arrival <= now) m_pending = m_pool[m_pending].next;
    return m_pending == kNone ? ~std::uint64_t{0} : m_pool[m_pending].arrival;
  }

 private:
  struct Bank {
    Index head = kNone, tail = kNone;
    std::uint32_t count = 0, hits = 0;
    Candidate cand;
  };
  void set_candidate(Bank& b, Index i) {
    b.cand.index = i;
    if (i != kNone) b.cand.arrival = m_pool[i].arrival, b.cand.order = order_of(m_pool[i].seq, m_pool[i].bank);
  }
  void set_bit(std::vector<std::uint64_t>& set, std::uint32_t bank, bool on) {
    const std::uint64_t bit = std::uint64_t{1} << (bank % 64);
    if (on) set[bank / 64] |= bit;
    else set[bank / 64] &= ~bit;
  }
  void set_hits(std::uint32_t bank, std::uint32_t hits);
  [[noreturn]] static void overflow();
  void recount_hits(std::uint32_t bank, std::uint32_t row);
  void clear_hits(std::uint32_t bank);

  std::vector<QueueEntry> m_pool;
  // Unused entries, linked by `next`, the last freed first: its line was
  // touched most recently (first in, first out took more L1 misses).
  Index m_free = kNone;
  std::vector<Bank> m_bank;
  std::vector<std::uint64_t> m_hit_set, m_miss_set;
  Index m_head = kNone, m_tail = kNone;
  Index m_pending = kNone;  // no burst before it is still to arrive
  std::uint16_t m_front_bypassed = 0;
  bool m_write;
  std::size_t m_size = 0, m_hits = 0;
  std::uint64_t m_seq = 0;
};

inline BurstQueue::Index BurstQueue::push_back(std::uint32_t bank, std::uint32_t row, std::uint64_t arrival,
                                               bool hit, std::uint16_t bursts) {
  if (m_free == kNone) {  // grow: the pool only ever holds the deepest occupancy
    m_free = static_cast<Index>(m_pool.size());
    m_pool.emplace_back().next = kNone;
  }
  const Index i = m_free;
  QueueEntry& e = m_pool[i];
  m_free = e.next;
  Bank& b = m_bank[bank];
  e.arrival = queued_arrival(arrival);
  if (kMaxBursts - m_seq < bursts) [[unlikely]]
    overflow();
  e.seq = m_seq;
  m_seq += bursts;
  e.run = bursts;
  e.bank = static_cast<std::uint16_t>(bank);
  e.row = row;
  e.next = kNone;
  e.prev = m_tail;
  if (m_tail != kNone) m_pool[m_tail].next = i;
  else m_head = i, m_front_bypassed = 0;
  m_tail = i;
  e.bank_next = kNone;
  e.bank_prev = b.tail;
  if (b.tail != kNone) m_pool[b.tail].bank_next = i;
  else b.head = i;
  b.tail = i;
  if (m_pending == kNone) m_pending = i;
  m_size += bursts;
  // The first burst of the bank, or its first hit, becomes its candidate.
  if (b.count == 0 || (hit && b.hits == 0)) set_candidate(b, i);
  b.count += bursts;
  if (hit) {
    b.hits += bursts, m_hits += bursts;
    set_bit(m_hit_set, bank, true);
  } else {
    set_bit(m_miss_set, bank, true);
  }
  return i;
}

// The first entry of a list (the queue's, a bank's) has no valid prev /
// bank_prev link: it stays first until it leaves (bursts join at the back),
// so its successor's back link is not written when it leaves. Most column
// commands serve the oldest burst of the queue and of its bank, and this
// spares writing two other entries' cache lines.
inline void BurstQueue::erase_hit(Index i) {
  QueueEntry& e = m_pool[i];
  Bank& b = m_bank[e.bank];
  --m_size;
  --b.count;
  --m_hits;
  --b.hits;
  if (e.run > 1) {
    // The run's next burst: one column on and one seq younger, still a
    // hit and the bank's oldest (the candidate, if this one was). As the
    // queue's oldest it has been bypassed by nobody yet.
    --e.run;
    ++e.seq;
    ++e.col;
    e.outcome = RowOutcome::kUnknown;
    e.waiting_since = e.arrival;
    if (i == m_head) m_front_bypassed = 0;
    if (b.cand.index == i) set_candidate(b, i);
    return;
  }
  if (i == m_head) {
    m_head = e.next, m_front_bypassed = 0;
    if (e.next == kNone) m_tail = kNone;
  } else {
    m_pool[e.prev].next = e.next;
    if (e.next != kNone) m_pool[e.next].prev = e.prev;
    else m_tail = e.prev;
  }
  if (m_pending == i) m_pending = e.next;
  if (i == b.head) {
    b.head = e.bank_next;
    if (e.bank_next == kNone) b.tail = kNone;
  } else {
    m_pool[e.bank_prev].bank_next = e.bank_next;
    if (e.bank_next != kNone) m_pool[e.bank_next].bank_prev = e.bank_prev;
    else b.tail = e.bank_prev;
  }
  if (b.hits == 0) {
    set_bit(m_hit_set, e.bank, false);
    if (b.cand.index == i) set_candidate(b, b.head);  // none hits now: the oldest misses
  } else if (b.cand.index == i) {
    // The next hit: the bank's other hits are younger and on the same row.
    Index k = e.bank_next;
    while (m_pool[k].row != e.row) k = m_pool[k].bank_next;
    set_candidate(b, k);
  }
  e.next = m_free;
  m_free = i;
}

}  // namespace mxc::hbm
