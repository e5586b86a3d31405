// Plugins: shared libraries that add connectors (sinks and sources) to the stock `ksink` binary.
//
// A plugin is a shared library built against the installed SDK (find_package(ksink) or
// pkg-config ksink) that defines, once, with this macro, the function the binary calls after
// dlopen()ing it:
//
//   KSINK_PLUGIN(registry) {
//     registry.add({"my-sink", [] { return std::make_unique<MySink>(); }, MySink::configDef()});
//     ksink::addSourceConnector(registry, {"my-source",
//                               [] { return std::make_unique<MySource>(); },
//                               MySource::configDef()});
//   }
//
// A plugin may also (or only) add transforms and predicates for `transforms=` chains, from the
// same function: TransformationRegistry::global().addTransformation(…).
//
// `ksink` loads every `*.so` found in the directories listed in the worker property
// `plugin.path` (comma-separated), in name order, before it reads the connectors. A plugin built
// for another ABI version is refused with the reason (ABI 1 was the sinks-only registry,
// ksink_register_sinks(SinkRegistry&); ABI 2 registered a source as the runtime's bytes-only
// driver; ABI 3 had no SinkTask::convertsRecords(); rebuilding against this SDK is all it needs).
#pragma once

#include "ksink/connector_registry.h"

#define KSINK_PLUGIN_ABI_VERSION 4

#define KSINK_PLUGIN(registry_name)           \
  extern "C" int ksink_plugin_abi_version() { \
    return KSINK_PLUGIN_ABI_VERSION;          \
  }                                           \
  extern "C" void ksink_register_connectors(::ksink::ConnectorRegistry& registry_name)
