#include "ksink/source_connector.h"

#include "ksink/converter.h"
#include "ksink/transformation_chain.h"
#include "source_offsets_codec.h"

namespace ksink {

const ConfigDef& sourceConnectorKeys() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.include(Converter::configDef());
    d.include(TransformationChain::configDef());
    return d;
  }();
  return def;
}

void addSourceConnector(ConnectorRegistry& registry, SourceConnectorEntry entry,
                        const std::vector<std::string>& aliases) {
  ConfigDef def = sourceConnectorKeys();
  def.include(entry.config_def);
  registry.addSource({std::move(entry.name), std::move(entry.factory), std::move(def),
                      std::move(entry.description), parseSourceOffsets, sourcePartitionOf,
                      std::move(entry.capabilities)},
                     aliases);
}

}  // namespace ksink
