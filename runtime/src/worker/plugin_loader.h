// Loads connector plugins (see ksink/plugin.h) from the directories of `plugin.path`.
#pragma once

#include <string>
#include <vector>

#include "ksink/connector_registry.h"

namespace ksink {

// Loads every *.so in `directories` (name order) into `registry`; returns the files loaded.
// Throws ConfigException naming plugin.path when a directory or a library cannot be loaded.
std::vector<std::string> loadPlugins(const std::vector<std::string>& directories,
                                     ConnectorRegistry& registry);

}  // namespace ksink
