#include "models/mxu/gemm_program.h"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

namespace mxc {

namespace {
std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }
}  // namespace

void validate(const GemmShape& s) {
  if (s.m == 0) throw std::invalid_argument("gemm: m must be >= 1");
  if (s.k == 0) throw std::invalid_argument("gemm: k must be >= 1");
  if (s.n == 0) throw std::invalid_argument("gemm: n must be >= 1");
  constexpr std::uint32_t kMaxDim = 1u << 16;
  if (s.m > kMaxDim || s.k > kMaxDim || s.n > kMaxDim)
    throw std::invalid_argument("gemm: m, k and n must each be <= " + std::to_string(kMaxDim));
}

void validate(const ArrayShape& a) {
  if (a.rows == 0) throw std::invalid_argument("array: rows must be >= 1");
  if (a.cols == 0) throw std::invalid_argument("array: cols must be >= 1");
  if (a.acc_rows == 0) throw std::invalid_argument("array: acc_rows must be >= 1");
}

GemmLayout place_gemm(const GemmShape& s, std::uint64_t base) {
  GemmLayout l;
  l.a_addr = align_up(base, 4096);
  l.b_addr = align_up(l.a_addr + std::uint64_t{s.m} * s.k, 4096);
  l.c_addr = align_up(l.b_addr + std::uint64_t{s.k} * s.n, 4096);
  return l;
}

GemmOperands random_gemm_operands(const GemmShape& s, std::uint64_t seed) {
  // mt19937_64's output sequence is fixed by the standard; taking the low
  // byte keeps the values identical on every platform (distributions are not).
  std::mt19937_64 gen(seed);
  GemmOperands ops;
  ops.a.resize(std::size_t{s.m} * s.k);
  ops.b.resize(std::size_t{s.k} * s.n);
  for (auto& v : ops.a) v = static_cast<std::int8_t>(gen() & 0xff);
  for (auto& v : ops.b) v = static_cast<std::int8_t>(gen() & 0xff);
  return ops;
}

Program compile_gemm(const GemmShape& s, const GemmLayout& l, const ArrayShape& arr) {
  validate(s);
  validate(arr);
  Program prog;
  std::uint8_t buf = 0;
  for (std::uint32_t m0 = 0; m0 < s.m; m0 += arr.acc_rows) {
    const std::uint32_t mb = std::min(arr.acc_rows, s.m - m0);
    for (std::uint32_t n0 = 0; n0 < s.n; n0 += arr.cols) {
      const std::uint32_t nb = std::min(arr.cols, s.n - n0);
      for (std::uint32_t k0 = 0; k0 < s.k; k0 += arr.rows) {
        const std::uint32_t kb = std::min(arr.rows, s.k - k0);
        Instr lw;
        lw.op = Opcode::kLoadWeights;
        lw.addr = l.b_addr + std::uint64_t{k0} * s.n + n0;
        lw.stride = s.n;
        lw.rows = kb;
        lw.cols = nb;
        lw.buf = buf;
        prog.push_back(lw);

        Instr mm;
        mm.op = Opcode::kMatmul;
        mm.addr = l.a_addr + std::uint64_t{m0} * s.k + k0;
        mm.stride = s.k;
        mm.rows = mb;
        mm.cols = kb;
        mm.acc_addr = 0;
        mm.accumulate = k0 > 0;
        mm.buf = buf;
        prog.push_back(mm);
        buf ^= 1;
      }
      Instr st;
      st.op = Opcode::kStore;
      st.addr = l.c_addr + (std::uint64_t{m0} * s.n + n0) * 4;
      st.stride = s.n * 4;
      st.rows = mb;
      st.cols = nb;
      st.acc_addr = 0;
      prog.push_back(st);
    }
  }
  return prog;
}

}  // namespace mxc
