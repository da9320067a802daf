#include "models/ici/ici_config.h"

#include <stdexcept>

#include "models/core/config_field_error.h"

namespace mxc::ici {

Time IciConfig::message_serialise_ps(std::uint64_t bytes) const {
  const std::uint64_t n = segments(bytes);
  const std::uint64_t full = bytes / max_payload_bytes;
  const std::uint64_t rest = bytes - full * max_payload_bytes;
  // Full-size packets first, then the remainder (or one header-only packet).
  Time t = full * serialise_ps(max_payload_bytes + header_bytes);
  if (n > full) t += serialise_ps(rest + header_bytes);
  return t;
}

void IciConfig::validate() const {
  // Fields below `ici`; the loader puts the error at the field's line.
  auto bad = [](const std::string& field, const std::string& why) { throw ConfigFieldError("", field, why); };
  if (!known_model(model)) bad("model", "must be 'torus' or 'analytic', got '" + model + "'");
  if (dims.empty()) bad("topology.dims", "needs at least one dimension");
  std::uint64_t chips = 1;
  for (auto k : dims) {
    if (k == 0) bad("topology.dims", "sizes must be >= 1");
    chips *= k;
    // Far past any pod (thousands of chips): a typo's fabric of millions took minutes and gigabytes.
    if (chips > kMaxChips)
      bad("topology.dims", "more than " + std::to_string(kMaxChips) + " chips in all (the product of the sizes)");
  }
  if (wrap.size() != 1 && wrap.size() != dims.size()) bad("topology.wrap", "needs one entry or one per dimension");
  if (!(link_gbps >= kMinLinkGbps && link_gbps <= kMaxLinkGbps))
    bad("link.bandwidth_gbps", "must be in [0.001, 1e6]");
  if (max_payload_bytes == 0) bad("packet.max_payload_bytes", "must be > 0");
  if (flit_bytes == 0) bad("packet.flit_bytes", "must be > 0");
  if (vcs_per_class == 0 || vcs_per_class > 64) bad("router.vcs_per_class", "must be in [1, 64]");
  if (injection_queue == 0) bad("router.injection_queue", "must be > 0");
  if (buffer_bytes_per_vc < static_cast<std::uint64_t>(flits(max_payload_bytes + header_bytes)) * flit_bytes)
    bad("router.buffer_bytes_per_vc", "must hold at least one maximum-size packet (" +
                                          std::to_string(max_payload_bytes + header_bytes) + " bytes)");
}

}  // namespace mxc::ici
