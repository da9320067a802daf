#pragma once
// Pin-level values of one AXI4 interface for one clock cycle, as plain
// structs: what the master drives and what the slave drives. Data buses are
// byte vectors (byte 0 = bits 7:0), so one struct fits any data width.
#include <cstdint>
#include <vector>

namespace mxc {

/// Everything an AXI4 master drives (read address, read ready, write address, write data, write ready).
struct Axi4MasterSignals {
  bool arvalid = false;
  std::uint32_t arid = 0;
  std::uint64_t araddr = 0;
  std::uint32_t arlen = 0;    ///< Beats - 1.
  std::uint32_t arsize = 0;   ///< log2(bytes per beat).
  std::uint32_t arburst = 0;  ///< 0 FIXED, 1 INCR, 2 WRAP.
  bool rready = false;

  bool awvalid = false;
  std::uint32_t awid = 0;
  std::uint64_t awaddr = 0;
  std::uint32_t awlen = 0;
  std::uint32_t awsize = 0;
  std::uint32_t awburst = 0;

  bool wvalid = false;
  std::vector<std::uint8_t> wdata;  ///< Beat bytes.
  std::vector<bool> wstrb;          ///< One enable per byte of wdata.
  bool wlast = false;

  bool bready = false;
};

/// Everything an AXI4 slave drives.
struct Axi4SlaveSignals {
  bool arready = false;

  bool rvalid = false;
  std::uint32_t rid = 0;
  std::vector<std::uint8_t> rdata;  ///< Beat bytes.
  std::uint32_t rresp = 0;          ///< 0 OKAY.
  bool rlast = false;

  bool awready = false;
  bool wready = false;

  bool bvalid = false;
  std::uint32_t bid = 0;
  std::uint32_t bresp = 0;
};

/// AXI4 burst types and response codes used by the transactors.
inline constexpr std::uint32_t kAxiBurstIncr = 1;
inline constexpr std::uint32_t kAxiRespOkay = 0;

}  // namespace mxc
