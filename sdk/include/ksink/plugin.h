// Plugins: shared libraries that add sinks to the stock `ksink` binary.
//
// A plugin is a shared library built against the installed SDK (find_package(ksink) or
// pkg-config ksink) that defines, once, with this macro, the function the binary calls after
// dlopen()ing it:
//
//   KSINK_PLUGIN(registry) {
//     registry.add({"my-sink", [] { return std::make_unique<MySink>(); }, MySink::configDef()});
//   }
//
// A plugin may also (or only) add transforms and predicates for the table sinks' `transforms=`
// chains, from the same function: TransformationRegistry::global().addTransformation(…).
//
// `ksink` loads every `*.so` found in the directories listed in the worker property
// `plugin.path` (comma-separated), in name order, before it reads the connectors.
#pragma once

#include "ksink/sink_registry.h"

#define KSINK_PLUGIN_ABI_VERSION 1

#define KSINK_PLUGIN(registry_name)                                              \
  extern "C" int ksink_plugin_abi_version() { return KSINK_PLUGIN_ABI_VERSION; } \
  extern "C" void ksink_register_sinks(::ksink::SinkRegistry& registry_name)
