// Address mapping from a bit-order string, and XOR bank hashing.
#include <catch2/catch.hpp>
#include <vector>

#include "models/hbm/address_mapper.h"
#include "tests/hbm/hbm_test_util.h"

using namespace mxc::hbm;

TEST_CASE("bit order places fields from the least significant end") {
  const HbmOrg org = test::preset("hbm2.yaml").device.org;  // 32 B bursts, 32 bursts per row
  AddressMapper m(org, "ro-ba-co:4-ch-pc-bg-co:1", false);
  // Bit 5: column bit 0; bits 6-7: bank group; 8: pc; 9-11: channel;
  // 12-15: column bits 1-4; 16-17: bank; 18 and up: row.
  CHECK(m.decode(1u << 5).col == 1);
  CHECK(m.decode(3u << 6).bank_group == 3);
  CHECK(m.decode(1u << 8).pc == 1);
  CHECK(m.decode(5u << 9).channel == 5);
  CHECK(m.decode(1u << 12).col == 2);
  CHECK(m.decode(2u << 16).bank == 2);
  CHECK(m.decode(std::uint64_t{12345} << 18).row == 12345);
  CHECK(m.decode(31).col == 0);  // offset inside the burst
  // Up to the last burst of the organisation's capacity.
  const std::uint64_t cap = org.stack_bytes();
  for (std::uint64_t a : {std::uint64_t{0}, std::uint64_t{32}, std::uint64_t{4096}, std::uint64_t{123456} * 32, cap - 32})
    CHECK(m.encode(m.decode(a)) == a);
}

TEST_CASE("a memory of one burst maps no bits: every address is its one burst") {
  HbmOrg org = test::preset("hbm2.yaml").device.org;
  org.channels = org.pseudo_channels = org.bank_groups = org.banks_per_group = org.rows = 1;
  org.columns = org.burst_length;  // one burst per row
  for (bool hash : {false, true}) {
    const AddressMapper m(org, "ro-ba-bg-pc-ch-co", hash);  // it had read past an empty table
    for (std::uint64_t a : {std::uint64_t{0}, std::uint64_t{31}, std::uint64_t{32}, std::uint64_t{1} << 40}) {
      const BurstAddr d = m.decode(a);
      CHECK((d.channel == 0 && d.pc == 0 && d.bank_group == 0 && d.bank == 0 && d.row == 0 && d.col == 0));
      BurstTarget t[2];
      m.decode_run(a & ~std::uint64_t{31}, 2, t);
      CHECK((t[0].pc == 0 && t[0].bank == 0 && t[0].row == 0 && t[0].col == 0));
      CHECK((t[1].pc == 0 && t[1].bank == 0 && t[1].row == 0 && t[1].col == 0));
    }
  }
}

TEST_CASE("XOR hashing spreads rows of one bank over banks and bank groups") {
  const HbmOrg org = test::preset("hbm2.yaml").device.org;
  AddressMapper plain(org, "ro-ba-bg-co-pc-ch", false);
  AddressMapper hashed(org, "ro-ba-bg-co-pc-ch", true);
  const std::uint64_t row_step = std::uint64_t{1} << (5 + 4 + 5 + 2 + 2);  // next row, same bank fields
  CHECK(plain.decode(row_step).bank == 0);
  CHECK(hashed.decode(row_step).bank == 1);           // row bit 0 flips bank bit 0
  CHECK(hashed.decode(row_step << 2).bank_group == 1);  // row bit 2 flips bank-group bit 0
  for (std::uint64_t a : {std::uint64_t{0}, row_step * 7 + 96, row_step * 12345})
    CHECK(hashed.encode(hashed.decode(a)) == a);
}

TEST_CASE("bad bit orders name the field") {
  const HbmOrg org = test::preset("hbm2.yaml").device.org;
  CHECK_THROWS_WITH(AddressMapper(org, "ro-ba-bg-co-pc", false), Catch::Contains("'ch'"));
  CHECK_THROWS_WITH(AddressMapper(org, "ro-ba-bg-co-pc-ch-xx", false), Catch::Contains("unknown field 'xx'"));
  CHECK_THROWS_WITH(AddressMapper(org, "ro-ba-bg-co:9-pc-ch", false), Catch::Contains("'co'"));
}

TEST_CASE("a bit count is digits only and at most its field's bits") {
  const HbmOrg org = test::preset("hbm2.yaml").device.org;  // 5 column bits
  // std::stoi read all but the last as a number followed by ignored text.
  for (const char* bad : {"co:4x", "co:+4", "co:4.0", "co:0x4", "co:"})
    CHECK_THROWS_WITH(AddressMapper(org, std::string("ro-ba-") + bad + "-ch-pc-bg-co:1", false),
                      Catch::Contains(std::string("bad bit count in '") + bad + "'"));
  CHECK_NOTHROW(AddressMapper(org, "ro-ba-co:04-ch-pc-bg-co:1", false));
  // Counts whose sum wrapped to the field's 5 bits passed the coverage check.
  CHECK_THROWS_WITH(AddressMapper(org, "ro-ba-bg-pc-ch-co:2147483647-co:2147483647-co:7", false),
                    Catch::Contains("bits of field 'co'"));
  CHECK_THROWS_WITH(AddressMapper(org, "ro-ba-bg-pc-ch-co:99999999999999999999", false),
                    Catch::Contains("bits of field 'co'"));
}

TEST_CASE("decode inverts encode for every preset and mapping, and ignores bits above the capacity") {
  for (const char* preset : {"hbm2.yaml", "hbm3.yaml"}) {
    const HbmOrg org = test::preset(preset).device.org;
    for (const char* order : {"ro-ba-co:4-ch-pc-bg-co:1", "ro-ba-bg-co-pc-ch", "ch-pc-ro-bg-ba-co"})
      for (bool hash : {false, true}) {
        AddressMapper m(org, order, hash);
        const std::uint64_t bits = 5 + 64 - static_cast<unsigned>(__builtin_clzll(
                                                 std::uint64_t{org.channels} * org.pseudo_channels * org.bank_groups *
                                                 org.banks_per_group * org.rows * org.bursts_per_row())) - 1;
        std::uint64_t x = 0x9e3779b97f4a7c15ull;
        for (int i = 0; i < 2000; ++i) {
          x ^= x << 13, x ^= x >> 7, x ^= x << 17;
          const std::uint64_t a = x & ((std::uint64_t{1} << bits) - 1) & ~std::uint64_t{31};
          const BurstAddr d = m.decode(a);
          CHECK(m.encode(d) == a);
          const BurstAddr alias = m.decode(a | (std::uint64_t{1} << bits) | (std::uint64_t{1} << 50));
          CHECK((alias.channel == d.channel && alias.pc == d.pc && alias.bank_group == d.bank_group &&
                 alias.bank == d.bank && alias.row == d.row && alias.col == d.col));
        }
      }
  }
}

TEST_CASE("decode_run and decode_one give decode's coordinates in flat pseudo-channel and bank numbers") {
  // decode_run ORs the flat coordinates of an address's parts; decode()
  // extracts each field apart. Runs start anywhere and cross the points
  // where the table's low byte wraps (every 256 bursts).
  for (const char* preset : {"hbm2.yaml", "hbm3.yaml"}) {
    const HbmOrg org = test::preset(preset).device.org;
    for (const char* order : {"ro-ba-co:4-ch-pc-bg-co:1", "ro-ba-bg-co-pc-ch", "ch-pc-ro-bg-ba-co"})
      for (bool hash : {false, true}) {
        AddressMapper m(org, order, hash);
        std::uint64_t x = 0x2545f4914f6cdd1dull;
        for (int run = 0; run < 40; ++run) {
          x ^= x << 13, x ^= x >> 7, x ^= x << 17;
          const std::uint64_t start = (x & ((std::uint64_t{1} << 34) - 1)) & ~std::uint64_t{31};
          const std::uint32_t n = 1 + static_cast<std::uint32_t>(x >> 54) % 600;
          std::vector<BurstTarget> got(n);
          m.decode_run(start, n, got.data());
          for (std::uint32_t i = 0; i < n; ++i) {
            const BurstAddr d = m.decode(start + std::uint64_t{i} * 32);
            CHECK(got[i].pc == d.channel * org.pseudo_channels + d.pc);
            CHECK(got[i].bank == d.bank_group * org.banks_per_group + d.bank);
            CHECK(got[i].row == d.row);
            CHECK(got[i].col == d.col);
          }
        }
        // decode_one with its cache of the address above the lowest byte:
        // bursts near each other (cache hits) and far apart (misses).
        AddressMapper::HighCache cache;
        for (int i = 0; i < 2000; ++i) {
          x ^= x << 13, x ^= x >> 7, x ^= x << 17;
          const std::uint64_t a =
              i % 3 == 0 ? (x & ((std::uint64_t{1} << 34) - 1)) : (cache.key << 13) + (x & 0x1fff);
          const BurstAddr d = m.decode(a);
          const BurstTarget t = m.decode_one(a, cache);
          CHECK(t.pc == d.channel * org.pseudo_channels + d.pc);
          CHECK(t.bank == d.bank_group * org.banks_per_group + d.bank);
          CHECK(t.row == d.row);
          CHECK(t.col == d.col);
        }
      }
  }
}

TEST_CASE("column_run bursts from an aligned start stay in one row of one bank at consecutive columns") {
  // What the controllers rely on to queue a run as one entry: checked on
  // decode(), burst by burst, for mappings with 1, 2 and all column bits at
  // the bottom and with none.
  const HbmOrg org = test::preset("hbm2.yaml").device.org;
  const struct {
    const char* order;
    std::uint32_t run;
  } cases[] = {{"ro-ba-co:4-ch-pc-bg-co:1", 2}, {"ro-ba-co:3-ch-pc-bg-co:2", 4}, {"ro-ba-bg-ch-pc-co", 32},
               {"ro-ba-bg-co-pc-ch", 1}, {"ch-pc-ro-bg-ba-co", 32}};
  for (const auto& c : cases)
    for (bool hash : {false, true}) {
      INFO(c.order << (hash ? " hashed" : ""));
      AddressMapper m(org, c.order, hash);
      REQUIRE(m.column_run() == c.run);
      std::uint64_t x = 0x9e3779b97f4a7c15ull;
      for (int k = 0; k < 300; ++k) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const std::uint64_t burst = (x & ((std::uint64_t{1} << 28) - 1)) & ~std::uint64_t{c.run - 1};
        const BurstAddr first = m.decode(burst * 32);
        CHECK(first.col % c.run == 0);  // an aligned start is the run's first column
        for (std::uint32_t i = 1; i < c.run; ++i) {
          const BurstAddr d = m.decode((burst + i) * 32);
          CHECK(d.channel == first.channel);
          CHECK(d.pc == first.pc);
          CHECK(d.bank_group == first.bank_group);
          CHECK(d.bank == first.bank);
          CHECK(d.row == first.row);
          CHECK(d.col == first.col + i);
        }
        // The next aligned start is a new run: another row, bank or
        // pseudo-channel, or the column run's wrap within the row.
        const BurstAddr next = m.decode((burst + c.run) * 32);
        const bool same_row = next.channel == first.channel && next.pc == first.pc &&
                              next.bank_group == first.bank_group && next.bank == first.bank && next.row == first.row;
        CHECK((!same_row || next.col != first.col + c.run));
      }
    }
}
