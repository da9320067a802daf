#pragma once
// Builds the fabric an IciConfig asks for ("torus" or "analytic").
#include <memory>

#include "models/core/fabric.h"
#include "models/ici/ici_config.h"

namespace mxc::ici {

/// A new fabric of kind cfg.model.
std::unique_ptr<Fabric> make_fabric(const IciConfig& cfg);

}  // namespace mxc::ici
