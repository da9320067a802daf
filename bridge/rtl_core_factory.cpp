#include "bridge/rtl_core_factory.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include <verilated.h>
#include <verilated_fst_c.h>

#include "bridge/verilated_ports.h"
#include "rtl_sizes.h"

namespace mxc {

namespace {

/// RtlCorePort over one verilated class V (one array size).
template <typename V>
class VerilatedCore final : public RtlCorePort {
 public:
  VerilatedCore(std::uint32_t rows, std::uint32_t cols, std::uint64_t seed)
      : m_rows(rows), m_cols(cols), m_ctx(std::make_unique<VerilatedContext>()) {
    // Randomised initial state (--x-initial unique), reproducible from the seed.
    m_ctx->randReset(2);
    m_ctx->randSeed(static_cast<int>(seed % 0x7fffffff));
    m_ctx->traceEverOn(true);
    m_model = std::make_unique<V>(m_ctx.get(), "mxu_core");
    m_model->clk = 0;
    m_model->eval();
  }
  ~VerilatedCore() override {
    close_trace();
    m_model->final();
  }

  std::uint32_t rows() const override { return m_rows; }
  std::uint32_t cols() const override { return m_cols; }
  std::uint32_t acc_rows() const override { return MXCOSIM_RTL_ACC_ROWS; }

  void set_reset(bool active) override { m_model->rst_n = !active; }

  void set_weights(bool valid, bool buf, std::span<const std::int8_t> row) override {
    m_model->w_valid = valid;
    m_model->w_buf = buf;
    verilated::pack(m_model->w_data, as_bytes(row));
  }

  void set_input(bool valid, std::span<const std::int8_t> vec, bool sel, std::uint32_t acc_addr,
                 bool accumulate) override {
    m_model->in_valid = valid;
    verilated::pack(m_model->in_data, as_bytes(vec));
    m_model->in_sel = sel;
    m_model->in_acc_addr = acc_addr;
    m_model->in_accumulate = accumulate;
  }

  void set_read(bool enable, std::uint32_t acc_addr) override {
    m_model->rd_en = enable;
    m_model->rd_addr = acc_addr;
  }

  void cycle() override {
    // Inputs were changed away from the rising edge (after the falling one).
    m_model->clk = 1;
    m_model->eval();
    m_ctx->timeInc(1);
    if (m_trace) m_trace->dump(m_ctx->time());
    m_model->clk = 0;
    m_model->eval();
    m_ctx->timeInc(1);
    if (m_trace) m_trace->dump(m_ctx->time());
  }

  bool read_valid() const override { return m_model->rd_valid; }

  void read_data(std::span<std::int32_t> out) const override {
    std::vector<std::uint8_t> bytes(out.size() * 4);
    verilated::unpack(m_model->rd_data, bytes);
    std::memcpy(out.data(), bytes.data(), bytes.size());  // little-endian host
  }

  std::uint32_t inflight(int buf) const override { return buf ? m_model->inflight1 : m_model->inflight0; }

  void open_trace(const std::string& path) override {
    close_trace();
    m_trace = std::make_unique<VerilatedFstC>();
    m_model->trace(m_trace.get(), 99);
    m_trace->open(path.c_str());
    if (!m_trace->isOpen()) throw std::runtime_error("cannot open waveform file '" + path + "'");
  }

  void close_trace() override {
    if (m_trace) m_trace->close();
    m_trace.reset();
  }

 private:
  static std::span<const std::uint8_t> as_bytes(std::span<const std::int8_t> s) {
    return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
  }

  std::uint32_t m_rows, m_cols;
  std::unique_ptr<VerilatedContext> m_ctx;
  std::unique_ptr<V> m_model;
  std::unique_ptr<VerilatedFstC> m_trace;
};

}  // namespace

std::vector<std::pair<std::uint32_t, std::uint32_t>> rtl_core_sizes() {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sizes;
#define MXCOSIM_SIZE_ENTRY(r, c, cls) sizes.emplace_back(r, c);
  MXCOSIM_FOR_EACH_RTL_SIZE(MXCOSIM_SIZE_ENTRY)
#undef MXCOSIM_SIZE_ENTRY
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

std::unique_ptr<RtlCorePort> make_rtl_core(std::uint32_t rows, std::uint32_t cols, std::uint64_t seed) {
#define MXCOSIM_SIZE_ENTRY(r, c, cls) \
  if (rows == (r) && cols == (c)) return std::make_unique<VerilatedCore<cls>>(rows, cols, seed);
  MXCOSIM_FOR_EACH_RTL_SIZE(MXCOSIM_SIZE_ENTRY)
#undef MXCOSIM_SIZE_ENTRY
  std::ostringstream msg;
  msg << "no RTL of a " << rows << "x" << cols << " array in this build; available:";
  for (auto [r, c] : rtl_core_sizes()) msg << " " << r << "x" << c;
  msg << " (configure with -DMXCOSIM_RTL_SIZES=\"" << rows << "x" << cols << ";...\" to add it)";
  throw std::invalid_argument(msg.str());
}

}  // namespace mxc
