// The scratchpad hazards a program's wait fields leave open between units,
// on hand-written programs whose guarantees are worked out in the comments,
// and against ProgramBuilder: the compiled workloads, whose waits the builder
// derives from explicit dependencies, have none.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

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
  CHECK_FALSE(find_hazard(parse(mm + "ici_send rows=2 cols=16 sp_row=20 remote_row=2\n")));
  const Program p = parse(mm + send);
  CHECK_THROWS_WITH(check_hazards(p, ProgramSource{"prog.s", {4, 9}}),
                    "prog.s:9: '" + describe(p[1]) + "' adds into accumulator rows 2..3 of chip 0, which runs this "
                    "program too, while 'matmul rows=4 cols=4 sp_row=0 acc_row=0 dtype=int8 buf=0' (prog.s:4) may "
                    "still be writing its results back there: a MATMUL completes when its last vector enters the "
                    "array, and its results reach the accumulators ROWS + COLS cycles later, so the result depends on "
                    "timing (a fence before it would wait for them)");
}

TEST_CASE("hazards: the error names both lines and the wait that closes it") {
  const Program p = parse("dma_load rows=4 cols=4 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n"
                          "matmul rows=4 cols=4 sp_row=0 acc_row=0\n");
  const ProgramSource source{"prog.s", {3, 5}};
  CHECK_THROWS_WITH(check_hazards(p, source),
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
        for (const Program& p : compile_multichip(mc, plan_multichip(mc, g), g)) CHECK_FALSE(find_hazard(p));
      }
    }
  }
}
