// The registry's name before it served sources too: ConnectorRegistry (ksink/connector_registry.h).
#pragma once

#include "ksink/connector_registry.h"

namespace ksink {

using SinkRegistry = ConnectorRegistry;

}  // namespace ksink
