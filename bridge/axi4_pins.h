#pragma once
// Copying Axi4MasterSignals / Axi4SlaveSignals out of / into any verilated
// model whose AXI4 master ports are named m_axi_<signal> (rtl/mxu_dma.sv's
// names). Templates, so this header needs no Verilator include of its own;
// wide buses go through bridge/verilated_ports.h.
#include <cstdint>
#include <type_traits>
#include <vector>

#include "bridge/axi4_signals.h"
#include "bridge/verilated_ports.h"

namespace mxc {

namespace axi4_detail {

/// Bytes a verilated port holds (CData..QData, or VlWide<N>).
template <typename Port>
constexpr std::size_t port_bytes() {
  return sizeof(std::remove_cvref_t<Port>);
}

template <typename Port>
void unpack_strobe(const Port& port, std::size_t lanes, std::vector<bool>& out) {
  out.resize(lanes);
  constexpr std::size_t kBits = 8 * sizeof(Port);
  for (std::size_t i = 0; i < lanes; ++i) {
    if (i >= kBits) {
      out[i] = false;
    } else if constexpr (std::is_integral_v<Port>) {
      out[i] = (static_cast<std::uint64_t>(port) >> i) & 1u;
    } else {
      out[i] = (port[i / 32] >> (i % 32)) & 1u;
    }
  }
}

}  // namespace axi4_detail

/// Reads every master-driven m_axi_* output of `model` (after eval()).
template <class V>
void read_master_pins(const V& model, Axi4MasterSignals& m) {
  m.arvalid = model.m_axi_arvalid;
  m.arid = model.m_axi_arid;
  m.araddr = model.m_axi_araddr;
  m.arlen = model.m_axi_arlen;
  m.arsize = model.m_axi_arsize;
  m.arburst = model.m_axi_arburst;
  m.rready = model.m_axi_rready;
  m.awvalid = model.m_axi_awvalid;
  m.awid = model.m_axi_awid;
  m.awaddr = model.m_axi_awaddr;
  m.awlen = model.m_axi_awlen;
  m.awsize = model.m_axi_awsize;
  m.awburst = model.m_axi_awburst;
  m.wvalid = model.m_axi_wvalid;
  // Power-of-two data widths fill their Verilator port type exactly, so the
  // port's size is the beat size. The beat's payload means something only
  // while WVALID is high (AXI4 A3.2.1), so only then is it copied out.
  constexpr std::size_t lanes = axi4_detail::port_bytes<decltype(model.m_axi_wdata)>();
  if (m.wvalid) {
    m.wdata.resize(lanes);
    verilated::unpack(model.m_axi_wdata, m.wdata);
    axi4_detail::unpack_strobe(model.m_axi_wstrb, lanes, m.wstrb);
  }
  m.wlast = model.m_axi_wlast;
  m.bready = model.m_axi_bready;
}

/// Drives every slave-driven m_axi_* input of `model` (before eval()).
template <class V>
void write_slave_pins(V& model, const Axi4SlaveSignals& s) {
  model.m_axi_arready = s.arready;
  model.m_axi_rvalid = s.rvalid;
  model.m_axi_rid = s.rid;
  verilated::pack(model.m_axi_rdata, s.rdata);
  model.m_axi_rresp = s.rresp;
  model.m_axi_rlast = s.rlast;
  model.m_axi_awready = s.awready;
  model.m_axi_wready = s.wready;
  model.m_axi_bvalid = s.bvalid;
  model.m_axi_bid = s.bid;
  model.m_axi_bresp = s.bresp;
}

}  // namespace mxc
