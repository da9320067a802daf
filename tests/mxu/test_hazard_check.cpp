// The scratchpad hazards a program's wait fields leave open between units,
// on hand-written programs whose guarantees are worked out in the comments,
// and against ProgramBuilder: the compiled workloads, whose waits the builder
// derives from explicit dependencies, have none.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "models/mxu/assembler.h"
#include "models/mxu/gemm_program.h"
#include "models/mxu/hazard_check.h"
#include "models/mxu/mlp_program.h"
#include "models/mxu/multichip_program.h"
#include "models/mxu/program_builder.h"

using namespace mxc;

namespace {

Program parse(const std::string& text) {
  std::istringstream in(text);
  return parse_program(in, "prog.s");
}

}  // namespace

TEST_CASE("hazards: a compute read of rows a DMA load writes needs the load complete") {
  // The second load is the only DMA instruction after the first: wait_dma=1 leaves the first complete.
  const std::string loads =
      "dma_load rows=4 cols=4 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n"
      "dma_load rows=4 cols=4 sp_row=4 hbm_addr=0x2000 hbm_stride=32\n";
  const auto h = find_hazard(parse(loads + "load_weights rows=4 cols=4 sp_row=0\n"));
  REQUIRE(h);
  CHECK(h->earlier == 0);
  CHECK(h->later == 2);
  CHECK(h->first_row == 0);
  CHECK(h->last_row == 3);
  CHECK_FALSE(h->later_writes);
  CHECK(h->earlier_writes);
  CHECK(h->fix == "wait_dma=1");
  CHECK_FALSE(find_hazard(parse(loads + "load_weights rows=4 cols=4 sp_row=0 wait_dma=1\n")));
  // Rows 2..5 overlap both loads: the later one binds, and its wait covers the first.
  const auto both = find_hazard(parse(loads + "matmul rows=4 cols=4 sp_row=2 acc_row=0 wait_dma=1\n"));
  REQUIRE(both);
  CHECK(both->earlier == 1);
  CHECK(both->first_row == 4);
  CHECK(both->last_row == 5);
  CHECK(both->fix == "wait_dma=0");
  // Rows 8..11 no load touches.
  CHECK_FALSE(find_hazard(parse(loads + "matmul rows=4 cols=4 sp_row=8 acc_row=0\n")));
}

TEST_CASE("hazards: writes over rows another unit reads or writes") {
  // A load over rows a matmul still reads (WAR), an output over rows a store still reads (WAR),
  // an output over rows a load writes (WAW); two reads never race, nor one unit's own instructions.
  const auto war = find_hazard(parse("matmul rows=4 cols=4 sp_row=0 acc_row=0\n"
                                     "dma_load rows=2 cols=4 sp_row=3 hbm_addr=0x1000 hbm_stride=32\n"));
  REQUIRE(war);
  CHECK(war->later_writes);
  CHECK_FALSE(war->earlier_writes);
  CHECK(war->first_row == 3);
  CHECK(war->last_row == 3);
  CHECK(war->fix == "wait_compute=0");
  CHECK(find_hazard(parse("dma_store rows=4 cols=4 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n"
                          "output rows=4 cols=4 sp_row=0 acc_row=0\n")));
  const auto waw = find_hazard(parse("dma_load rows=4 cols=4 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n"
                                     "output rows=4 cols=4 sp_row=0 acc_row=0\n"));
  REQUIRE(waw);
  CHECK((waw->later_writes && waw->earlier_writes));
  CHECK_FALSE(find_hazard(parse("dma_store rows=4 cols=4 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n"
                                "matmul rows=4 cols=4 sp_row=0 acc_row=0\n"
                                "ici_send rows=4 cols=4 sp_row=0 dst_chip=0 remote_row=100\n")));
  CHECK_FALSE(find_hazard(parse("dma_load rows=4 cols=4 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n"
                                "dma_store rows=4 cols=4 sp_row=0 hbm_addr=0x2000 hbm_stride=32\n")));
  CHECK_FALSE(find_hazard(parse("load_weights rows=4 cols=4 sp_row=0\n"
                                "output rows=4 cols=4 sp_row=0 acc_row=0\n")));
}

TEST_CASE("hazards: what was complete at an instruction's dispatch stays complete") {
  const std::string load = "dma_load rows=4 cols=4 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n";
  // A NOP or a FENCE between the load and the read, or the read after an instruction that waited.
  CHECK_FALSE(find_hazard(parse(load + "nop wait_dma=0\nmatmul rows=4 cols=4 sp_row=0 acc_row=0\n")));
  CHECK_FALSE(find_hazard(parse(load + "fence\nici_send rows=4 cols=4 sp_row=0 remote_row=100\n")));
  // The send waits for the load_weights only, which waited for the load: complete, hence dispatched,
  // hence the load complete. Without the load_weights' wait the send races the load.
  CHECK_FALSE(find_hazard(parse(load + "load_weights rows=4 cols=4 sp_row=8 wait_dma=0\n"
                                       "ici_send rows=4 cols=4 sp_row=0 remote_row=100 wait_compute=0\n")));
  const auto h = find_hazard(parse(load + "load_weights rows=4 cols=4 sp_row=8\n"
                                          "ici_send rows=4 cols=4 sp_row=0 remote_row=100 wait_compute=0\n"));
  REQUIRE(h);
  CHECK(h->earlier == 0);
  CHECK(h->later == 2);
  CHECK(h->fix == "wait_dma=0");
}

TEST_CASE("hazards: an instruction dispatches with room in its unit's queue so older ones are complete") {
  // A load into rows 0..3, then 5 loads elsewhere: the last dispatches with room in the 4-deep DMA
  // queue, so at most 4 of the 5 loads before it are outstanding and the first is complete. A read of
  // rows 0..3 after it needs no wait (wait_dma=5 never stalls). With 4 loads after the first, all 5
  // may be outstanding at the read's dispatch (4 queued, 1 executing): wait_dma=4 waits for the first.
  std::string program = "dma_load rows=4 cols=4 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n";
  for (int i = 1; i <= 4; ++i)
    program += "dma_load rows=1 cols=4 sp_row=" + std::to_string(10 + i) + " hbm_addr=0x2000 hbm_stride=32\n";
  const std::string read = "load_weights rows=4 cols=4 sp_row=0 buf=0\n";
  const auto h = find_hazard(parse(program + read));
  REQUIRE(h);
  CHECK(h->earlier == 0);
  CHECK(h->later == 5);
  CHECK(h->fix == "wait_dma=4");
  CHECK_FALSE(find_hazard(parse(program + "load_weights rows=4 cols=4 sp_row=0 buf=0 wait_dma=4\n")));
  program += "dma_load rows=1 cols=4 sp_row=15 hbm_addr=0x2000 hbm_stride=32\n";
  CHECK_FALSE(find_hazard(parse(program + read)));
  // The same through another unit's dispatch: a send after 4 matmuls, each with room in the compute
  // queue, finds the load complete that the first waited for.
  CHECK_FALSE(find_hazard(parse("dma_load rows=4 cols=4 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n"
                                "matmul rows=1 cols=4 sp_row=8 acc_row=0 wait_dma=0\n"
                                "matmul rows=1 cols=4 sp_row=8 acc_row=0\nmatmul rows=1 cols=4 sp_row=8 acc_row=0\n"
                                "matmul rows=1 cols=4 sp_row=8 acc_row=0\nmatmul rows=1 cols=4 sp_row=8 acc_row=0\n"
                                "ici_send rows=4 cols=4 sp_row=0 remote_row=100\n")));
}

TEST_CASE("hazards: ProgramBuilder's waits and the check follow one bound on outstanding instructions") {
  Instr first;
  first.op = Opcode::DMA_LOAD;
  first.rows = first.cols = 4;
  first.hbm_addr = 0x1000;
  first.hbm_stride = 32;
  Instr other = first;
  other.rows = 1;
  Instr read;
  read.op = Opcode::LOAD_WEIGHTS;
  read.rows = read.cols = 4;
  for (int after = 0; after <= 6; ++after) {
    INFO(after << " loads after the first");
    ProgramBuilder pb;
    const auto load = pb.emit(first);
    for (int i = 0; i < after; ++i) {
      other.sp_row = static_cast<std::uint16_t>(10 + i);
      pb.emit(other);
    }
    pb.emit(read, {load});
    const Instr& lw = pb.program().back();
    CHECK(lw.wait_dma == (after < 5 ? after : isa::kNoWait));
    CHECK_FALSE(find_hazard(pb.program()));
    // The wait the builder writes is the one the check asks for.
    Program bare = pb.program();
    bare.back().wait_dma = isa::kNoWait;
    const auto h = find_hazard(bare);
    CHECK(static_cast<bool>(h) == (after < 5));
    if (h) CHECK(h->fix == "wait_dma=" + std::to_string(after));
  }
}

TEST_CASE("hazards: an ICI add into accumulator rows a MATMUL may not have written back yet") {
  // The MATMUL is complete (wait_compute=0) when its last vector entered the array; its results
  // reach accumulator rows 0..3 later, and chip 0 (this program's too) adds the sent rows there.
  const std::string mm = "matmul rows=4 cols=4 sp_row=0 acc_row=0\n";
  const std::string send = "ici_send rows=2 cols=16 sp_row=20 dst_chip=0 remote_row=2 to_acc wait_compute=0\n";
  const auto h = find_hazard(parse(mm + send));
  REQUIRE(h);
  CHECK(h->accumulators);
  CHECK(h->earlier == 0);
  CHECK(h->first_row == 2);
  CHECK(h->last_row == 3);
  CHECK(h->fix == "a fence before it");
  // A FENCE waits for the array to drain; an OUTPUT starts only once it has, so its completion does.
  CHECK_FALSE(find_hazard(parse(mm + "fence\n" + send)));
  CHECK_FALSE(find_hazard(parse(mm + "output rows=1 cols=4 sp_row=40 acc_row=100\n" + send)));
  // An OUTPUT not known complete says nothing; rows the MATMUL does not write, or the scratchpad, race with nothing.
  CHECK(find_hazard(parse(mm + "output rows=1 cols=4 sp_row=40 acc_row=100\n" +
                          "ici_send rows=2 cols=16 sp_row=20 dst_chip=0 remote_row=2 to_acc\n")));
  CHECK_FALSE(find_hazard(parse(mm + "ici_send rows=2 cols=16 sp_row=20 remote_row=4 to_acc\n")));
  CHECK_FALSE(find_hazard(parse(mm + "ici_send rows=2 cols=16 sp_row=20 remote_row=40\n")));
  const Program p = parse(mm + send);
  CHECK_THROWS_WITH(check_hazards(p, ProgramSource{"prog.s", {4, 9}}, 1),
                    "prog.s:9: '" + describe(p[1]) + "' adds into accumulator rows 2..3 of chip 0, which runs this "
                    "program too, while 'matmul rows=4 cols=4 sp_row=0 acc_row=0 dtype=int8 buf=0' (prog.s:4) may "
                    "still be writing its results back there: a MATMUL completes when its last vector enters the "
                    "array, and its results reach the accumulators ROWS + COLS cycles later, so the result depends on "
                    "timing (a fence before it would wait for them)");
}

TEST_CASE("hazards: a MATMUL or OUTPUT after an ICI add into its accumulator rows waits for them to arrive") {
  // Chip 0 sends itself 200 scratchpad rows, then adds a row into accumulator row 0: it arrives after
  // them, whenever the ICI unit gets to it, and is added then. A MATMUL writing row 0 or an OUTPUT
  // reading it must wait for an ICI_WAIT counting all 201 rows.
  const std::string head =
      "dma_load rows=4 cols=4 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n"
      "dma_load rows=1 cols=4 sp_row=4 hbm_addr=0x2000 hbm_stride=32\n"
      "dma_load rows=1 cols=16 sp_row=5 hbm_addr=0x4000 hbm_stride=32\n"
      "load_weights rows=4 cols=4 sp_row=0 buf=0 wait_dma=0\n"
      "matmul rows=1 cols=4 sp_row=4 acc_row=0 buf=0\n"
      "fence\n"
      "ici_send rows=200 cols=16 sp_row=100 dst_chip=0 remote_row=400\n"
      "ici_send rows=1 cols=16 sp_row=5 dst_chip=0 remote_row=0 to_acc\n";  // instruction 7
  const std::string matmul = "matmul rows=1 cols=4 sp_row=4 acc_row=0 buf=0";
  const std::string output = "output rows=1 cols=4 sp_row=8 acc_row=0";
  const std::string fix = "an ici_wait counting them before it and wait_ici=0";
  const auto overwrite = find_hazard(parse(head + matmul + "\nici_wait rows=201\n" + output + " wait_ici=0\n"));
  REQUIRE(overwrite);
  CHECK(overwrite->accumulators);
  CHECK(overwrite->race == Hazard::Race::kArrival);
  CHECK(overwrite->earlier == 7);
  CHECK(overwrite->later == 8);
  CHECK(overwrite->first_row == 0);
  CHECK(overwrite->last_row == 0);
  CHECK(overwrite->later_writes);
  CHECK(overwrite->fix == fix);
  const auto read = find_hazard(parse(head + output + "\nici_wait rows=201\n"));
  REQUIRE(read);
  CHECK(read->race == Hazard::Race::kArrival);
  CHECK(read->earlier == 7);
  CHECK(read->later == 8);
  CHECK_FALSE(read->later_writes);
  CHECK(read->fix == fix);
  // Waiting for an ICI_WAIT that counts the row closes it; one counting only the 200 rows before does not.
  CHECK_FALSE(find_hazard(parse(head + "ici_wait rows=201\n" + matmul + " wait_ici=0\n" + output + " wait_ici=0\n")));
  CHECK_FALSE(find_hazard(parse(head + "ici_wait rows=200\nici_wait rows=1\n" + output + " wait_ici=0\n")));
  const auto short_wait = find_hazard(parse(head + "ici_wait rows=200\n" + output + " wait_ici=0\n"));
  REQUIRE(short_wait);
  // The waits there count 200 of the 201 rows: the fix says how many more.
  CHECK(short_wait->fix == "an ici_wait counting 1 more row before it and wait_ici=0");
  // Without the wait field, the wait that would close it counts the ICI instructions after that ICI_WAIT.
  const auto no_field = find_hazard(parse(head + "ici_wait rows=201\nici_send rows=1 cols=4 sp_row=9 remote_row=600\n" +
                                          output + "\n"));
  REQUIRE(no_field);
  CHECK(no_field->later == 10);
  CHECK(no_field->fix == "wait_ici=1");
  // Rows the send does not add into, and a FENCE, which does not wait for rows on their way.
  CHECK_FALSE(find_hazard(parse(head + "matmul rows=1 cols=4 sp_row=4 acc_row=1 buf=0\n")));
  CHECK(find_hazard(parse(head + "fence\n" + output + "\n")));
  // Every chip runs the program: on 2 chips the other sends chip 0 its 201 rows too, which may fill a
  // wait for 201 first; a wait for 402 counts chip 0's own.
  const std::string waited = head + "ici_wait rows=201\n" + output + " wait_ici=0\n";
  CHECK(find_hazard(parse(waited), RunOn{2, std::nullopt}));
  CHECK_FALSE(find_hazard(parse(head + "ici_wait rows=402\n" + output + " wait_ici=0\n"), RunOn{2, std::nullopt}));
  // A chip's own program: the rows go to itself only when dst_chip is that chip, and what other chips
  // send it is not known, so no wait counts them for sure.
  CHECK_FALSE(find_hazard(parse(head + output + "\n"), RunOn{2, 1}));
  CHECK(find_hazard(parse(head + output + "\n"), RunOn{1, 0}));
  CHECK_FALSE(find_hazard(parse(waited), RunOn{1, 0}));
  CHECK(find_hazard(parse(waited), RunOn{2, 0}));
}

TEST_CASE("hazards: scratchpad rows a chip sends itself are written whenever they arrive") {
  // Chip 0 sends itself row 0 into row 1 (instruction 1): a store of row 1 before an ICI_WAIT counting
  // it may read the old row or the new one.
  const std::string load = "dma_load rows=2 cols=32 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n";
  const std::string send = "ici_send rows=1 cols=32 sp_row=0 dst_chip=0 remote_row=1 wait_dma=0\n";
  const std::string store = "dma_store rows=1 cols=32 sp_row=1 hbm_addr=0x3000 hbm_stride=32";
  const auto h = find_hazard(parse(load + send + store + "\n"));
  REQUIRE(h);
  CHECK_FALSE(h->accumulators);
  CHECK(h->race == Hazard::Race::kArrival);
  CHECK(h->earlier == 1);
  CHECK(h->later == 2);
  CHECK(h->first_row == 1);
  CHECK(h->last_row == 1);
  CHECK(h->earlier_writes);
  CHECK_FALSE(h->later_writes);
  CHECK(h->fix == "an ici_wait counting them before it and wait_ici=0");
  CHECK_FALSE(find_hazard(parse(load + send + "ici_wait rows=1\n" + store + " wait_ici=0\n")));
  // A FENCE waits for the row to leave, not to arrive.
  CHECK(find_hazard(parse(load + send + "fence\n" + store + "\n")));
  // Rows arrive in order: a wait counting the first two of four covers rows 10 and 11, not 12.
  const std::string four = "ici_send rows=4 cols=32 sp_row=0 dst_chip=0 remote_row=10 wait_dma=0\nici_wait rows=2\n";
  CHECK_FALSE(find_hazard(parse(load + four + "dma_store rows=2 cols=32 sp_row=10 hbm_addr=0x3000 wait_ici=0\n")));
  const std::string store12 = "dma_store rows=1 cols=32 sp_row=12 hbm_addr=0x3000 wait_ici=0\n";
  const auto third = find_hazard(parse(load + four + store12));
  REQUIRE(third);
  CHECK(third->first_row == 12);
  CHECK(third->fix == "an ici_wait counting 1 more row before it and wait_ici=0");  // 2 of 3 rows counted
  CHECK_FALSE(find_hazard(parse(load + four + "ici_wait rows=1\n" + store12)));
  // The ICI unit's own later send reads them once every ICI_WAIT before it has completed.
  const std::string resend = "ici_send rows=1 cols=32 sp_row=1 dst_chip=0 remote_row=50\n";
  const auto ici = find_hazard(parse(load + send + resend));
  REQUIRE(ici);
  CHECK(ici->later == 2);
  CHECK(ici->fix == "an ici_wait counting them before it");
  CHECK_FALSE(find_hazard(parse(load + send + "ici_wait rows=1\n" + resend)));
  // Another chip's rows: not this chip's to follow.
  const std::string away = "ici_send rows=1 cols=32 sp_row=0 dst_chip=1 remote_row=1 wait_dma=0\n";
  CHECK_FALSE(find_hazard(parse(load + away + store + "\n"), RunOn{2, 0}));
  const Program p = parse(load + send + store + "\n");
  CHECK_THROWS_WITH(check_hazards(p, ProgramSource{"prog.s", {3, 4, 5}}, 1),
                    "prog.s:5: '" + describe(p[2]) + "' reads scratchpad row 1 while the rows '" + describe(p[1]) +
                        "' (prog.s:4) sends there may not have arrived: chip 0 runs this program too and sends them "
                        "to itself, and they are written whenever they arrive, which only a completed ICI_WAIT "
                        "counting them guarantees, so the result depends on timing (an ici_wait counting them before "
                        "it and wait_ici=0 would wait for them)");
}

TEST_CASE("hazards: on several chips the rows the others send in are named among the rows to wait for") {
  // Int8 rows added into chip 0's accumulators by every chip (they combine in any order): on 2
  // chips chip 1 sends 2 rows too, and the ICI_WAIT for 2 may count them first.
  const Program p = parse("dma_load rows=2 cols=16 sp_row=20 hbm_addr=0x1000 hbm_stride=16\n"
                          "ici_send rows=2 cols=16 sp_row=20 dst_chip=0 remote_row=0 to_acc wait_dma=0\n"
                          "ici_wait rows=2\n"
                          "output rows=1 cols=4 sp_row=40 acc_row=1 wait_ici=0\n");
  const ProgramSource source{"prog.s", {3, 4, 5, 6}};
  CHECK_NOTHROW(check_hazards(p, source, 1));
  CHECK_THROWS_WITH(check_hazards(p, source, 2),
                    Catch::Contains("sends them to itself (and the other chip sends it as many rows, which may be "
                                    "counted first), and they are added whenever they arrive") &&
                        Catch::Contains("(an ici_wait counting 2 more rows before it and wait_ici=0 would wait "
                                        "for them)"));
  CHECK_THROWS_WITH(check_hazards(p, source, 4), Catch::Contains("(and the other 3 chips send it as many rows each"));
}

TEST_CASE("hazards: a store of rows copies arrive in from several chips is refused for the order, not the wait") {
  // tests/programs/ici_loopback.s on 2 chips: chip 1 sends chip 0 a row into row 7 too. The wait for
  // one row may count chip 1's, but a wait for both, as that race would ask, still leaves row 7
  // holding whichever copy came last: the order is named, which no wait fixes.
  const std::string dir = std::string(MXCOSIM_SOURCE_DIR) + "/tests/programs/";
  ProgramSource source;
  const Program p = load_program_file(dir + "ici_loopback.s", source);
  CHECK_NOTHROW(check_hazards(p, source, 1));
  for (const std::uint32_t chips : {2u, 4u}) {
    INFO(chips << " chips");
    CHECK_THROWS_WITH(check_hazards(p, source, chips),
                      Catch::Contains("sends from each of the " + std::to_string(chips) +
                                      " chips running this program: the copies arrive in an order nothing fixes") &&
                          Catch::Contains("no wait orders rows from different chips"));
  }
}

TEST_CASE("hazards: on several chips a store of what arrived from every chip in no fixed order is refused") {
  // Every chip runs the file: chips 0 and 1 each receive a copy of row 0 from both into row 7, in an
  // order no wait fixes, whatever was counted.
  const std::string load = "dma_load rows=1 cols=32 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n";
  const std::string sends = "ici_send rows=1 cols=32 sp_row=0 dst_chip=0 remote_row=7 wait_dma=0\n"
                            "ici_send rows=1 cols=32 sp_row=0 dst_chip=1 remote_row=7\n"
                            "ici_wait rows=2\n";
  const std::string store = "dma_store rows=1 cols=32 sp_row=7 hbm_addr=0x2000 hbm_stride=32 wait_ici=0\n";
  const RunOn two{2, std::nullopt};
  const auto h = find_hazard(parse(load + sends + store), two);
  REQUIRE(h);
  CHECK(h->race == Hazard::Race::kCopies);
  CHECK_FALSE(h->accumulators);
  CHECK(h->earlier == 2);  // the last send into row 7
  CHECK(h->later == 4);
  CHECK(h->first_row == 7);
  CHECK(h->last_row == 7);
  CHECK(h->fix.empty());
  // One chip: its own copy only. A chip's own program: the others' are not known.
  CHECK_FALSE(find_hazard(parse(load + "ici_send rows=1 cols=32 sp_row=0 dst_chip=0 remote_row=7 wait_dma=0\n"
                                       "ici_wait rows=1\n" + store)));
  const auto own = find_hazard(parse(load + sends + store), RunOn{2, 0});
  CHECK((!own || own->race != Hazard::Race::kCopies));
  // What is made of them is followed: weights, a MATMUL, an OUTPUT, then the store.
  const std::string through = "load_weights rows=1 cols=4 sp_row=7 wait_ici=0\n"
                              "matmul rows=1 cols=4 sp_row=20 acc_row=0\n"
                              "output rows=1 cols=4 sp_row=30 acc_row=0\n"
                              "dma_store rows=1 cols=16 sp_row=30 hbm_addr=0x3000 wait_compute=0\n";
  const auto made = find_hazard(parse(load + "dma_load rows=1 cols=4 sp_row=20 hbm_addr=0x1100 hbm_stride=32\n" +
                                      sends + through),
                                two);
  REQUIRE(made);
  CHECK(made->race == Hazard::Race::kCopies);
  CHECK(made->later == 8);
  CHECK(made->first_row == 30);
  // Rows loaded again before the store hold no copies; rows never stored do not matter.
  CHECK_FALSE(find_hazard(parse(load + sends + "dma_load rows=1 cols=32 sp_row=7 hbm_addr=0x1000 wait_ici=0\n" +
                                "dma_store rows=1 cols=32 sp_row=7 hbm_addr=0x2000 wait_dma=0\n"),
                          two));
  CHECK_FALSE(find_hazard(parse(load + sends), two));
  // int8 rows added into accumulators sum the same in any order; bf16 ones do not.
  const std::string adds = "ici_send rows=1 cols=4 sp_row=0 dst_chip=0 remote_row=5 to_acc DTYPE wait_dma=0\n"
                           "ici_send rows=1 cols=4 sp_row=0 dst_chip=1 remote_row=5 to_acc DTYPE\n"
                           "ici_wait rows=4\n"
                           "output rows=1 cols=4 sp_row=40 acc_row=5 wait_ici=0\n"
                           "dma_store rows=1 cols=16 sp_row=40 hbm_addr=0x3000 wait_compute=0\n";
  const auto typed = [&](const std::string& dtype) {
    std::string t = adds;
    for (std::size_t at; (at = t.find("DTYPE")) != std::string::npos;) t.replace(at, 5, "dtype=" + dtype);
    return load + t;
  };
  CHECK_FALSE(find_hazard(parse(typed("int8")), two));
  const auto bf16 = find_hazard(parse(typed("bf16")), two);
  REQUIRE(bf16);
  CHECK(bf16->race == Hazard::Race::kCopies);
  CHECK(bf16->accumulators);
  const Program p = parse(load + sends + store);
  CHECK_THROWS_WITH(check_hazards(p, ProgramSource{"prog.s", {1, 2, 3, 4, 5}}, 2),
                    "prog.s:5: '" + describe(p[4]) + "' stores scratchpad row 7, whose data on chip 1 comes from "
                        "the rows '" + describe(p[2]) + "' (prog.s:3) sends from each of the 2 chips running this "
                        "program: the copies arrive in an order nothing fixes, into the same rows, so the result "
                        "depends on timing (no wait orders rows from different chips; only int8 rows added into "
                        "accumulators, to_acc, combine in any order)");
}

TEST_CASE("hazards: a send to the chip's own scratchpad waits for other units still using its rows") {
  // The second load writes row 1 and only the first is waited for: the row sent there may arrive
  // before the load's data, or after.
  const std::string loads = "dma_load rows=1 cols=32 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n"
                            "dma_load rows=1 cols=32 sp_row=1 hbm_addr=0x1040 hbm_stride=32\n";
  const std::string send = "ici_send rows=1 cols=32 sp_row=0 dst_chip=0 remote_row=1";
  const auto h = find_hazard(parse(loads + send + " wait_dma=1\n"));
  REQUIRE(h);
  CHECK(h->destination);
  CHECK(h->earlier == 1);
  CHECK(h->later == 2);
  CHECK(h->first_row == 1);
  CHECK(h->earlier_writes);
  CHECK(h->fix == "wait_dma=0");
  CHECK_FALSE(find_hazard(parse(loads + send + " wait_dma=0\n")));
  // A read of the row by another unit races too; a send into rows nobody uses does not.
  CHECK(find_hazard(parse(loads + "load_weights rows=1 cols=4 sp_row=1 wait_dma=0\n" + send + " wait_dma=0\n")));
  CHECK_FALSE(find_hazard(parse(loads + "ici_send rows=1 cols=32 sp_row=0 dst_chip=0 remote_row=9 wait_dma=1\n")));
  const Program p = parse(loads + send + " wait_dma=1\n");
  CHECK_THROWS_WITH(check_hazards(p, ProgramSource{"prog.s", {1, 2, 3}}, 1),
                    "prog.s:3: '" + describe(p[2]) + "' sends rows to scratchpad row 1 of chip 0, which runs this "
                        "program too, while '" + describe(p[1]) + "' (prog.s:2) may still be writing them: the rows "
                        "are written whenever they arrive, from when the send runs, and nothing makes it wait for "
                        "that DMA instruction to complete, so the result depends on timing (wait_dma=0 would wait for "
                        "it)");
}

TEST_CASE("hazards: an ICI add into accumulator rows an OUTPUT may still read") {
  // The OUTPUT starts once the array has drained and completes with its last row written: until then
  // the rows chip 0 sends itself may be added under it.
  const std::string head = "matmul rows=4 cols=4 sp_row=0 acc_row=0\nfence\noutput rows=2 cols=4 sp_row=40 acc_row=2\n";
  const std::string send = "ici_send rows=2 cols=16 sp_row=20 dst_chip=0 remote_row=3 to_acc";
  const auto h = find_hazard(parse(head + send + "\n"));
  REQUIRE(h);
  CHECK(h->accumulators);
  CHECK(h->race == Hazard::Race::kRead);
  CHECK(h->earlier == 2);
  CHECK(h->later == 3);
  CHECK(h->first_row == 3);
  CHECK(h->last_row == 3);
  CHECK(h->fix == "wait_compute=0");
  CHECK_FALSE(find_hazard(parse(head + send + " wait_compute=0\n")));
  CHECK_FALSE(find_hazard(parse(head + "ici_send rows=2 cols=16 sp_row=20 dst_chip=0 remote_row=4 to_acc\n")));
  const Program p = parse(head + send + "\n");
  CHECK_THROWS_WITH(check_hazards(p, ProgramSource{"prog.s", {1, 2, 3, 5}}, 1),
                    "prog.s:5: '" + describe(p[3]) + "' adds into accumulator row 3 of chip 0, which runs this "
                    "program too, while 'output rows=2 cols=4 sp_row=40 acc_row=2 dtype=int8' (prog.s:3) may still "
                    "be reading them: nothing makes it wait for that compute instruction to complete, so the result "
                    "depends on timing (wait_compute=0 would wait for it)");
}

TEST_CASE("hazards: the error for rows that may not have arrived names the send and the wait") {
  const Program p = parse("ici_send rows=2 cols=16 sp_row=20 dst_chip=0 remote_row=0 to_acc\n"
                          "matmul rows=4 cols=4 sp_row=0 acc_row=0\n"
                          "ici_wait rows=2\n"
                          "output rows=1 cols=4 sp_row=40 acc_row=1\n");
  CHECK_THROWS_WITH(check_hazards(p, ProgramSource{"prog.s", {3, 4, 5, 6}}, 1),
                    "prog.s:4: 'matmul rows=4 cols=4 sp_row=0 acc_row=0 dtype=int8 buf=0' writes accumulator rows "
                    "0..1 while the rows 'ici_send rows=2 cols=16 sp_row=20 dst_chip=0 remote_row=0 dtype=int8 "
                    "to_acc' (prog.s:3) adds there may not have arrived: chip 0 runs this program too and sends them "
                    "to itself, and they are added whenever they arrive, which only a completed ICI_WAIT counting "
                    "them guarantees, so the result depends on timing (an ici_wait counting them before it and "
                    "wait_ici=0 would wait for them)");
  const Program out = parse("ici_send rows=2 cols=16 sp_row=20 dst_chip=0 remote_row=0 to_acc\n"
                            "ici_wait rows=2\n"
                            "output rows=1 cols=4 sp_row=40 acc_row=1\n");
  CHECK_THROWS_WITH(check_hazards(out, ProgramSource{"prog.s", {3, 4, 5}}, 1),
                    "prog.s:5: 'output rows=1 cols=4 sp_row=40 acc_row=1 dtype=int8' reads accumulator row 1 while "
                    "the rows 'ici_send rows=2 cols=16 sp_row=20 dst_chip=0 remote_row=0 dtype=int8 to_acc' "
                    "(prog.s:3) adds there may not have arrived: chip 0 runs this program too and sends them to "
                    "itself, and they are added whenever they arrive, which only a completed ICI_WAIT counting them "
                    "guarantees, so the result depends on timing (wait_ici=0 would wait for them)");
  CHECK_NOTHROW(check_hazards(parse("ici_send rows=2 cols=16 sp_row=20 dst_chip=0 remote_row=0 to_acc\n"
                                    "ici_wait rows=2\n"
                                    "output rows=1 cols=4 sp_row=40 acc_row=1 wait_ici=0\n"),
                              ProgramSource{"prog.s", {3, 4, 5}}, 1));
}

TEST_CASE("hazards: tests/programs/ici_acc_race.s is refused and ici_acc_add.s which waits is not") {
  const std::string dir = std::string(MXCOSIM_SOURCE_DIR) + "/tests/programs/";
  ProgramSource race_source;
  const Program race = load_program_file(dir + "ici_acc_race.s", race_source);
  CHECK_THROWS_WITH(check_hazards(race, race_source, 1),
                    dir + "ici_acc_race.s:15: '" + describe(race[8]) + "' writes accumulator row 0 while the rows '" +
                        describe(race[7]) + "' (" + dir + "ici_acc_race.s:14) adds there may not have arrived: chip "
                        "0 runs this program too and sends them to itself, and they are added whenever they arrive, "
                        "which only a completed ICI_WAIT counting them guarantees, so the result depends on timing "
                        "(an ici_wait counting them before it and wait_ici=0 would wait for them)");
  ProgramSource add_source;
  const Program add = load_program_file(dir + "ici_acc_add.s", add_source);
  CHECK_NOTHROW(check_hazards(add, add_source, 1));
  // Its wait fields are what keep it so: without the OUTPUT's, the OUTPUT may read before the row is added.
  Program bare = add;
  bare[8].wait_ici = isa::kNoWait;
  const auto h = find_hazard(bare);
  REQUIRE(h);
  CHECK(h->race == Hazard::Race::kArrival);
  CHECK(h->earlier == 6);
  CHECK(h->later == 8);
  CHECK(h->fix == "wait_ici=0");
}

TEST_CASE("hazards: the error names both lines and the wait that closes it") {
  const Program p = parse("dma_load rows=4 cols=4 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n"
                          "matmul rows=4 cols=4 sp_row=0 acc_row=0\n");
  const ProgramSource source{"prog.s", {3, 5}};
  CHECK_THROWS_WITH(check_hazards(p, source, 1),
                    "prog.s:5: 'matmul rows=4 cols=4 sp_row=0 acc_row=0 dtype=int8 buf=0' reads scratchpad rows 0..3 "
                    "while 'dma_load rows=4 cols=4 sp_row=0 hbm_addr=0x1000 hbm_stride=32' (prog.s:3) may still be "
                    "writing them: nothing makes it wait for that DMA instruction to complete, so the result depends "
                    "on timing (wait_dma=0 would wait for it)");
}

TEST_CASE("hazards: the compiled workloads, whose waits ProgramBuilder derives, have none") {
  for (const TileGeometry& g : {TileGeometry{4, 4}, TileGeometry{8, 8}, TileGeometry{4, 8}}) {
    for (const DType dt : {DType::kInt8, DType::kBf16}) {
      for (const GemmShape& s : {GemmShape{16, 16, 16, dt}, GemmShape{37, 21, 13, dt}, GemmShape{64, 8, 40, dt}}) {
        INFO("gemm " << s.m << "x" << s.k << "x" << s.n << " on " << g.rows << "x" << g.cols);
        Program p = compile_gemm(s, place_gemm(s, g), g);
        CHECK_FALSE(find_hazard(p));
        // Without its wait fields the same program races: the check sees what they guard.
        for (Instr& in : p) in.wait_dma = in.wait_compute = in.wait_ici = isa::kNoWait;
        CHECK(find_hazard(p));
      }
      if (g.rows == g.cols) {  // the MLP's second layer reads the first's output as its activations
        const MlpShape mlp{24, 12, 20, 8, dt, dt == DType::kInt8 ? mlp_default_shift(12) : std::uint8_t{0}};
        CHECK_FALSE(find_hazard(compile_mlp(mlp, place_mlp(mlp, g), g)));
      }
      for (const ChipSplit split : {ChipSplit::kK, ChipSplit::kN}) {
        const MultiChipGemm mc{GemmShape{16, 32, 24, dt}, 2, split};
        // Each chip runs its own program: its sends to other chips are not to itself.
        const std::vector<Program> programs = compile_multichip(mc, plan_multichip(mc, g), g);
        for (std::uint32_t c = 0; c < programs.size(); ++c) CHECK_FALSE(find_hazard(programs[c], RunOn{2, c}));
      }
    }
  }
}

// A program per chip: every chip's program is known, so the rows each chip is sent are too.

TEST_CASE("hazards: per-chip programs: a store of rows two chips both send into is refused") {
  // Chip 0 sends its row 0 into row 7 of chip 1, and chip 1 sends itself its own row 0 there: the
  // two rows land in an order nothing fixes, so what a store of row 7 reads depends on it.
  const std::string load = "dma_load rows=1 cols=32 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n";
  const std::string to_seven = "ici_send rows=1 cols=32 sp_row=0 dst_chip=1 remote_row=7 wait_dma=0\n";
  const std::string store = "dma_store rows=1 cols=32 sp_row=7 hbm_addr=0x2000 hbm_stride=32 wait_ici=0\n";
  const std::vector<Program> both{parse(load + to_seven), parse(load + to_seven + "ici_wait rows=2\n" + store)};
  const auto h = find_hazard(both[1], RunOn{2, 1, &both});
  REQUIRE(h);
  CHECK(h->race == Hazard::Race::kCopies);
  CHECK(h->earlier == 1);  // chip 1's own send, from which on the row's data depends on the order
  CHECK_FALSE(h->earlier_chip);
  CHECK(h->later == 3);
  CHECK(h->first_row == 7);
  CHECK(h->last_row == 7);
  CHECK_FALSE(find_hazard(both[0], RunOn{2, 0, &both}));
  // Chip 1 sending itself into row 8 instead: each row has one sender, whose rows arrive in order.
  const std::string to_eight = "ici_send rows=1 cols=32 sp_row=0 dst_chip=1 remote_row=8 wait_dma=0\n";
  const std::vector<Program> apart{
      both[0], parse(load + to_eight + "ici_wait rows=2\n" +
                     "dma_store rows=2 cols=32 sp_row=7 hbm_addr=0x2000 hbm_stride=32 wait_ici=0\n")};
  CHECK_FALSE(find_hazard(apart[1], RunOn{2, 1, &apart}));
  // Two other chips sending into the row, none from chip 2 itself: the row's data depends on the
  // order from the start, named by the first of those sends, in its chip's program.
  const std::string into_two = "ici_send rows=1 cols=32 sp_row=0 dst_chip=2 remote_row=7 wait_dma=0\n";
  const std::vector<Program> three{parse(load + into_two), parse(load + into_two),
                                   parse("ici_wait rows=2\n" + store)};
  const auto from_others = find_hazard(three[2], RunOn{3, 2, &three});
  REQUIRE(from_others);
  CHECK(from_others->race == Hazard::Race::kCopies);
  CHECK(from_others->earlier_chip == std::optional<std::uint32_t>(0));
  CHECK(from_others->earlier == 1);
  CHECK(from_others->later == 1);
  // Rows loaded again before the store hold none of it.
  const std::vector<Program> reloaded{three[0], three[1],
                                      parse("ici_wait rows=2\n"
                                            "dma_load rows=1 cols=32 sp_row=7 hbm_addr=0x1000 wait_ici=0\n"
                                            "dma_store rows=1 cols=32 sp_row=7 hbm_addr=0x2000 wait_dma=0\n")};
  CHECK_FALSE(find_hazard(reloaded[2], RunOn{3, 2, &reloaded}));
  // Added into accumulators by both: bf16 sums depend on the order, int8 ones do not.
  const std::string adds = "ici_send rows=1 cols=4 sp_row=0 dst_chip=1 remote_row=5 to_acc DTYPE wait_dma=0\n";
  const std::string read_out = "ici_wait rows=2\n"
                               "output rows=1 cols=4 sp_row=40 acc_row=5 wait_ici=0\n"
                               "dma_store rows=1 cols=16 sp_row=40 hbm_addr=0x3000 wait_compute=0\n";
  const auto typed = [&](const std::string& dtype) {
    std::string a = adds;
    a.replace(a.find("DTYPE"), 5, "dtype=" + dtype);
    return std::vector<Program>{parse(load + a), parse(load + a + read_out)};
  };
  const std::vector<Program> int8 = typed("int8"), bf16 = typed("bf16");
  CHECK_FALSE(find_hazard(int8[1], RunOn{2, 1, &int8}));
  const auto sum = find_hazard(bf16[1], RunOn{2, 1, &bf16});
  REQUIRE(sum);
  CHECK(sum->race == Hazard::Race::kCopies);
  CHECK(sum->accumulators);
  CHECK(sum->later == 4);
  // The message names the store in chip 1's file and the send, of chip 0's file when it is chip 0's.
  const std::vector<ProgramSource> sources{ProgramSource{"a.s", {1, 2}}, ProgramSource{"b.s", {1, 2, 3, 4}}};
  CHECK_THROWS_WITH(check_hazards(both, sources),
                    "b.s:4: '" + describe(both[1][3]) + "' stores scratchpad row 7, whose data comes from the rows '" +
                        describe(both[1][1]) + "' (b.s:2) sends to chip 1: what they hold there depends on the order "
                        "in which rows of more than one chip land on the same rows, which nothing fixes, so the "
                        "result depends on timing (no wait orders rows from different chips; only int8 rows added "
                        "into accumulators, to_acc, combine in any order)");
  const std::vector<ProgramSource> three_sources{ProgramSource{"a.s", {3, 4}}, ProgramSource{"b.s", {1, 2}},
                                                 ProgramSource{"c.s", {5, 6}}};
  CHECK_THROWS_WITH(check_hazards(three, three_sources),
                    Catch::StartsWith("c.s:6: '" + describe(three[2][1]) + "' stores scratchpad row 7, whose data "
                                      "comes from the rows chip 0's '" + describe(three[0][1]) + "' (a.s:4) sends to "
                                      "chip 2: "));
}

TEST_CASE("hazards: per-chip programs: rows two other chips send stay in no fixed order until all have arrived") {
  // Chips 0 and 1 add bf16 rows into accumulator row 5 of chip 2, which writes the row with a
  // MATMUL first: the two adds may come after it (in either order), so what it reads out depends
  // on their order. Once an ICI_WAIT has counted both rows, a MATMUL writing the row again leaves
  // nothing of them.
  const std::string load = "dma_load rows=4 cols=32 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n";
  const std::string add = "ici_send rows=1 cols=16 sp_row=0 dst_chip=2 remote_row=5 to_acc dtype=bf16 wait_dma=0\n";
  const std::string init = load + "load_weights rows=4 cols=4 sp_row=0 dtype=bf16 wait_dma=0\n"
                                  "matmul rows=1 cols=4 sp_row=0 acc_row=5 dtype=bf16\n";
  const std::string read_out = "output rows=1 cols=4 sp_row=40 acc_row=5 dtype=bf16 wait_ici=0\n"
                               "dma_store rows=1 cols=16 sp_row=40 hbm_addr=0x3000 wait_compute=0\n";
  const std::vector<Program> early{parse(load + add), parse(load + add),
                                   parse(init + "fence\nici_wait rows=2\n" + read_out)};
  const auto h = find_hazard(early[2], RunOn{3, 2, &early});
  REQUIRE(h);
  CHECK(h->race == Hazard::Race::kCopies);
  CHECK(h->accumulators);
  CHECK(h->earlier_chip == std::optional<std::uint32_t>(0));
  CHECK(h->later == 6);
  const std::vector<Program> after{early[0], early[1],
                                   parse(init + "ici_wait rows=2\n"
                                                "matmul rows=1 cols=4 sp_row=0 acc_row=5 dtype=bf16 wait_ici=0\n"
                                                "fence\n" + read_out)};
  CHECK_FALSE(find_hazard(after[2], RunOn{3, 2, &after}));
  // One other chip adding there: its rows arrive in order, and the programs order them with the MATMUL.
  const std::vector<Program> one{early[0], parse(load), early[2]};
  CHECK_FALSE(find_hazard(one[2], RunOn{3, 2, &one}));
}

TEST_CASE("hazards: per-chip programs: data made of rows in no fixed order is followed through other chips") {
  // Chips 0 and 1 send into row 7 of chip 2, which passes the row on to chip 0's row 9: what chip 0
  // stores there depends on the order the two rows reached chip 2.
  const std::string load = "dma_load rows=1 cols=32 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n";
  const std::string into_two = "ici_send rows=1 cols=32 sp_row=0 dst_chip=2 remote_row=7 wait_dma=0\n";
  const std::string pass_on = "ici_wait rows=2\nici_send rows=1 cols=32 sp_row=7 dst_chip=0 remote_row=9\n";
  const std::vector<Program> chain{
      parse(load + into_two + "ici_wait rows=1\ndma_store rows=1 cols=32 sp_row=9 hbm_addr=0x2000 wait_ici=0\n"),
      parse(load + into_two), parse(pass_on)};
  const auto h = find_hazard(chain[0], RunOn{3, 0, &chain});
  REQUIRE(h);
  CHECK(h->race == Hazard::Race::kCopies);
  CHECK(h->earlier_chip == std::optional<std::uint32_t>(2));
  CHECK(h->earlier == 1);
  CHECK(h->later == 3);
  CHECK(h->first_row == 9);
  // Chip 2 passing on its own loaded row instead: nothing of the order reaches chip 0.
  const std::vector<Program> clean{
      chain[0], chain[1],
      parse(load + "ici_wait rows=2\nici_send rows=1 cols=32 sp_row=0 dst_chip=0 remote_row=9 wait_dma=0\n")};
  CHECK_FALSE(find_hazard(clean[0], RunOn{3, 0, &clean}));
}

TEST_CASE("hazards: per-chip programs: the rows other chips send may fill an ICI_WAIT count first") {
  // Chip 1 sends itself row 0 into row 5 and waits for 1 row before storing it; chip 0 sends chip 1
  // two rows (into rows 20..21), which may arrive first and fill that count. A wait for 3 counts
  // chip 1's own row whatever the order.
  const std::string load = "dma_load rows=1 cols=32 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n";
  const std::string own = load + "ici_send rows=1 cols=32 sp_row=0 dst_chip=1 remote_row=5 wait_dma=0\n";
  const std::string store = "dma_store rows=1 cols=32 sp_row=5 hbm_addr=0x2000 hbm_stride=32 wait_ici=0\n";
  const Program sender = parse("dma_load rows=2 cols=32 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n"
                               "ici_send rows=2 cols=32 sp_row=0 dst_chip=1 remote_row=20 wait_dma=0\n");
  const std::vector<Program> early{sender, parse(own + "ici_wait rows=1\n" + store)};
  const auto h = find_hazard(early[1], RunOn{2, 1, &early});
  REQUIRE(h);
  CHECK(h->race == Hazard::Race::kArrival);
  CHECK(h->earlier == 1);
  CHECK(h->later == 3);
  CHECK(h->first_row == 5);
  CHECK(h->fix == "an ici_wait counting 2 more rows before it and wait_ici=0");  // 3 rows, not 1
  const std::vector<Program> counted{sender, parse(own + "ici_wait rows=3\n" + store)};
  CHECK_FALSE(find_hazard(counted[1], RunOn{2, 1, &counted}));
  // Two waits, 2 then 1: the second counts the third row, chip 1's own whatever came first.
  const std::vector<Program> split{sender, parse(own + "ici_wait rows=2\nici_wait rows=1\n" + store)};
  CHECK_FALSE(find_hazard(split[1], RunOn{2, 1, &split}));
  // Chip 0 sending to itself instead: nothing reaches chip 1 but its own row, which 1 counts.
  const Program elsewhere = parse("dma_load rows=2 cols=32 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n"
                                  "ici_send rows=2 cols=32 sp_row=0 dst_chip=0 remote_row=20 wait_dma=0\n");
  const std::vector<Program> alone{elsewhere, early[1]};
  CHECK_FALSE(find_hazard(alone[1], RunOn{2, 1, &alone}));
  // What the others send not known (a compiled program's own): no count is sure.
  CHECK(find_hazard(counted[1], RunOn{2, 1}));
  const std::vector<ProgramSource> sources{ProgramSource{"a.s", {1, 2}}, ProgramSource{"b.s", {1, 2, 3, 4}}};
  CHECK_THROWS_WITH(check_hazards(early, sources),
                    "b.s:4: '" + describe(early[1][3]) + "' reads scratchpad row 5 while the rows '" +
                        describe(early[1][1]) + "' (b.s:2) sends there may not have arrived: chip 1 sends them to "
                        "itself (and the other chips send it 2 rows, which may be counted first), and they are "
                        "written whenever they arrive, which only a completed ICI_WAIT counting them guarantees, so "
                        "the result depends on timing (an ici_wait counting 2 more rows before it and wait_ici=0 "
                        "would wait for them)");
  // Not known what the others send: how many more cannot be said.
  const auto unknown = find_hazard(early[1], RunOn{2, 1});
  REQUIRE(unknown);
  CHECK(unknown->fix == "an ici_wait counting them before it and wait_ici=0");
}

TEST_CASE("hazards: per-chip programs: a chip's sends to itself are checked as on one chip") {
  // Chip 1 sends itself row 0 into row 1, which its second load may still be writing; chip 0 sends
  // chip 1 nothing. The message names chip 1 as the one the send is to, itself.
  const std::string loads = "dma_load rows=1 cols=32 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n"
                            "dma_load rows=1 cols=32 sp_row=1 hbm_addr=0x1040 hbm_stride=32\n";
  const std::vector<Program> programs{parse("nop\n"),
                                      parse(loads + "ici_send rows=1 cols=32 sp_row=0 dst_chip=1 remote_row=1 "
                                                    "wait_dma=1\n")};
  const auto h = find_hazard(programs[1], RunOn{2, 1, &programs});
  REQUIRE(h);
  CHECK(h->destination);
  CHECK(h->fix == "wait_dma=0");
  CHECK_THROWS_WITH(check_hazards(programs, {ProgramSource{"a.s", {1}}, ProgramSource{"b.s", {1, 2, 3}}}),
                    "b.s:3: '" + describe(programs[1][2]) + "' sends rows to scratchpad row 1 of chip 1 (itself), "
                        "while '" + describe(programs[1][1]) + "' (b.s:2) may still be writing them: the rows are "
                        "written whenever they arrive, from when the send runs, and nothing makes it wait for that DMA "
                        "instruction to complete, so the result depends on timing (wait_dma=0 would wait for it)");
  // Sent to chip 0 instead: not its own rows, and chip 0's program uses none of them.
  const std::vector<Program> away{programs[0], parse(loads + "ici_send rows=1 cols=32 sp_row=0 dst_chip=0 "
                                                             "remote_row=1 wait_dma=1\n")};
  CHECK_FALSE(find_hazard(away[1], RunOn{2, 1, &away}));
}

TEST_CASE("hazards: per-chip programs: two chips exchanging rows with plain sends pass") {
  // Each chip loads two rows, sends them into rows 10..11 of the other, waits for the two rows it
  // is sent and stores them: one sender per row, nothing of the chip's own uses them.
  const auto chip = [](int other) {
    return parse("dma_load rows=2 cols=32 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n"
                 "ici_send rows=2 cols=32 sp_row=0 dst_chip=" + std::to_string(other) + " remote_row=10 wait_dma=0\n"
                 "ici_wait rows=2\n"
                 "dma_store rows=2 cols=32 sp_row=10 hbm_addr=0x2000 hbm_stride=32 wait_ici=0\n");
  };
  const std::vector<Program> pair{chip(1), chip(0)};
  CHECK_FALSE(find_hazard(pair[0], RunOn{2, 0, &pair}));
  CHECK_FALSE(find_hazard(pair[1], RunOn{2, 1, &pair}));
  CHECK_NOTHROW(check_hazards(pair, {ProgramSource{"a.s", {}}, ProgramSource{"b.s", {}}}));
  // Without its wait field the store may read the rows before they arrive: that is this chip's own
  // use racing another chip's rows, which the programs' own synchronisation orders (not checked).
  // The same pair as one program every chip runs is something else: each chip then sends to both.
  const Program both = chip(1);
  CHECK(find_hazard(both, RunOn{2, std::nullopt}));
}
