#include "offset_stores.h"

#include "topic_offset_store.h"

namespace ksink {

std::shared_ptr<OffsetBackingStore> openOffsetStore(const SourceConnectorConfig& settings,
                                                    FileOffsetStore::Access access) {
  if (!settings.offsets_file.empty())
    return access == FileOffsetStore::Access::kRead
               ? std::make_shared<FileOffsetStore>(settings.offsets_file, access)
               : FileOffsetStore::forFile(settings.offsets_file);
  return openTopicOffsetStore(settings);
}

std::shared_ptr<ConnectorOffsetStore> openTopicOffsetStore(const SourceConnectorConfig& settings) {
  auto topic = [&](const std::string& name, const char* key) {
    return std::make_shared<TopicOffsetStore>(
        settings.client_properties, name, settings.offsets_topic_partitions,
        settings.offsets_topic_replication_factor, TopicOffsetStore::Role{"offsets topic", key});
  };
  if (settings.offsets_topic == settings.worker_offsets_topic)
    return std::make_shared<ConnectorOffsetStore>(
        topic(settings.offsets_topic, "offset.storage.topic"), nullptr);
  return std::make_shared<ConnectorOffsetStore>(
      topic(settings.offsets_topic, "offsets.storage.topic"),
      topic(settings.worker_offsets_topic, "offset.storage.topic"));
}

}  // namespace ksink
