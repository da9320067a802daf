#include "models/ici/fabric_factory.h"

#include <stdexcept>

#include "models/ici/analytic_fabric.h"
#include "models/ici/torus_fabric.h"

namespace mxc::ici {

std::unique_ptr<Fabric> make_fabric(const IciConfig& cfg) {
  if (cfg.model == "torus") return std::make_unique<TorusFabric>(cfg);
  if (cfg.model == "analytic") return std::make_unique<AnalyticFabric>(cfg);
  throw std::invalid_argument("ICI model '" + cfg.model + "' is unknown (torus, analytic)");
}

}  // namespace mxc::ici
