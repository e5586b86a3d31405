// makeSourceWorker: a Worker running a source connector's SourceTasks directly, without the
// `ksink` command line.
//
//   auto worker = ksink::makeSourceWorker(config, [] { return std::make_unique<MySource>(); });
//   worker->run();  // until worker->stop()
#pragma once

#include <memory>

#include "ksink/config.h"
#include "ksink/exactly_once_support.h"
#include "ksink/source_connector.h"
#include "ksink/worker.h"

namespace ksink {

// A Worker running `config`'s connector with tasks made by `factory`. Throws ConfigException
// naming every bad key.
std::unique_ptr<Worker> makeSourceWorker(const Config& config, SourceTaskFactory factory,
                                         const SourceCapabilities& capabilities = {});

}  // namespace ksink
