#include "models/ici/collective.h"

#include <algorithm>
#include <stdexcept>

namespace mxc::ici {

namespace {
std::string normalise(std::string s) {
  std::string out;
  for (char ch : s)
    if (ch != '-' && ch != '_') out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
  return out;
}
}  // namespace

Collective parse_collective(const std::string& s) {
  const std::string n = normalise(s);
  if (n == "allreduce") return Collective::kAllReduce;
  if (n == "reducescatter") return Collective::kReduceScatter;
  if (n == "allgather") return Collective::kAllGather;
  if (n == "alltoall") return Collective::kAllToAll;
  throw std::invalid_argument("unknown collective '" + s + "' (allreduce, reducescatter, allgather, alltoall)");
}

Algorithm parse_algorithm(const std::string& s) {
  const std::string n = normalise(s);
  if (n == "ring") return Algorithm::kRing;
  if (n == "bidirring" || n == "bidir") return Algorithm::kBidirRing;
  if (n == "dim" || n == "dimorder") return Algorithm::kDimOrder;
  if (n == "allaxes") return Algorithm::kAllAxes;
  throw std::invalid_argument("unknown algorithm '" + s + "' (ring, bidir-ring, dim, all-axes)");
}

std::string to_string(Collective c) {
  switch (c) {
    case Collective::kAllReduce: return "allreduce";
    case Collective::kReduceScatter: return "reducescatter";
    case Collective::kAllGather: return "allgather";
    case Collective::kAllToAll: return "alltoall";
  }
  return "?";
}

std::string to_string(Algorithm a) {
  switch (a) {
    case Algorithm::kRing: return "ring";
    case Algorithm::kBidirRing: return "bidir-ring";
    case Algorithm::kDimOrder: return "dim";
    case Algorithm::kAllAxes: return "all-axes";
  }
  return "?";
}

Schedule build_schedule(Collective c, Algorithm a, const Topology& topo, std::uint64_t bytes) {
  if (topo.num_chips() < 2) throw std::invalid_argument("collective: needs at least 2 chips");
  switch (a) {
    case Algorithm::kRing: return ring_schedule(c, topo, bytes);
    case Algorithm::kBidirRing: return bidir_ring_schedule(c, topo, bytes);
    case Algorithm::kDimOrder: return dim_order_schedule(c, topo, bytes);
    case Algorithm::kAllAxes: return all_axes_schedule(c, topo, bytes);
  }
  throw std::invalid_argument("collective: unknown algorithm");
}

std::vector<Phase> ring_phases(Collective c, const Topology& topo, int dir, std::uint64_t bytes) {
  const std::uint32_t p = topo.num_chips();
  Phase ph;
  ph.group = Group::kAllChips;
  ph.dir = dir;
  ph.steps = p - 1;
  ph.step_bytes = ceil_div(bytes, p);
  if (c == Collective::kAllToAll) {
    ph.pattern = Pattern::kPairwise;
    return {ph};
  }
  ph.pattern = Pattern::kShift;
  if (c == Collective::kAllReduce) return {ph, ph};  // reduce-scatter, then all-gather
  return {ph};
}

std::vector<Phase> dim_phases(Collective c, const Topology& topo, const std::vector<std::uint32_t>& order, int dir,
                              std::uint64_t bytes) {
  std::vector<Phase> rs;  // reduce-scatter: the data shrinks by k per dimension
  std::uint64_t cur = bytes;
  for (std::uint32_t d : order) {
    const std::uint32_t k = topo.dim_size(d);
    if (k < 2) continue;
    Phase ph;
    ph.group = Group::kDim;
    ph.dim = d;
    ph.dir = dir;
    if (c == Collective::kAllToAll) {
      // Each chip sends every peer in the line the 1/k of its data bound for
      // that coordinate; the data per chip stays `bytes`.
      ph.pattern = Pattern::kDirect;
      ph.steps = 1;
      ph.step_bytes = ceil_div(bytes, k);
    } else {
      ph.pattern = Pattern::kShift;
      ph.steps = k - 1;
      ph.step_bytes = ceil_div(cur, k);
      cur = ph.step_bytes;
    }
    rs.push_back(ph);
  }
  if (c == Collective::kAllToAll || c == Collective::kReduceScatter) return rs;
  std::vector<Phase> ag(rs.rbegin(), rs.rend());  // all-gather: the same chunks, in reverse
  if (c == Collective::kAllGather) return ag;
  rs.insert(rs.end(), ag.begin(), ag.end());
  return rs;
}

}  // namespace mxc::ici
