#include "offset_stores.h"

#include "file_offset_store.h"
#include "topic_offset_store.h"

namespace ksink {

std::shared_ptr<OffsetBackingStore> openOffsetStore(const SourceConnectorConfig& settings) {
  if (!settings.offsets_file.empty()) return FileOffsetStore::forFile(settings.offsets_file);
  return openTopicOffsetStore(settings);
}

std::shared_ptr<ConnectorOffsetStore> openTopicOffsetStore(const SourceConnectorConfig& settings) {
  auto topic = [&](const std::string& name) {
    return std::make_shared<TopicOffsetStore>(settings.client_properties, name,
                                              settings.offsets_topic_partitions,
                                              settings.offsets_topic_replication_factor);
  };
  return std::make_shared<ConnectorOffsetStore>(
      topic(settings.offsets_topic), settings.offsets_topic == settings.worker_offsets_topic
                                         ? nullptr
                                         : topic(settings.worker_offsets_topic));
}

}  // namespace ksink
