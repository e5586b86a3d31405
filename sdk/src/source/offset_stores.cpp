#include "offset_stores.h"

#include "file_offset_store.h"
#include "topic_offset_store.h"

namespace ksink {

std::shared_ptr<OffsetBackingStore> openOffsetStore(const SourceConnectorConfig& settings) {
  if (!settings.offsets_file.empty()) return FileOffsetStore::forFile(settings.offsets_file);
  return openTopicOffsetStore(settings);
}

std::shared_ptr<TopicOffsetStore> openTopicOffsetStore(const SourceConnectorConfig& settings) {
  return std::make_shared<TopicOffsetStore>(settings.client_properties, settings.offsets_topic,
                                            settings.offsets_topic_partitions,
                                            settings.offsets_topic_replication_factor);
}

}  // namespace ksink
