#include "ksink/source_worker.h"

namespace ksink {

std::unique_ptr<Worker> makeSourceWorker(const Config& config, SourceTaskFactory factory,
                                         const SourceCapabilities& capabilities) {
  ConfigDef def = sourceConnectorKeys();
  def.include(config.definitions());
  return std::make_unique<Worker>(Config(config.values(), std::move(def)), std::move(factory),
                                  capabilities);
}

}  // namespace ksink
