// openOffsetStore: where a source connector's offsets live — Connect standalone's file when
// offset.storage.file.filename names one (one store per file per process), else the offsets
// topic: the worker's offset.storage.topic, or the connector's offsets.storage.topic in front of
// it (ConnectorOffsetStore). `access` kRead opens a file of its own that takes no lock, to read
// beside a process that runs the connector.
#pragma once

#include <memory>

#include "connector_offset_store.h"
#include "file_offset_store.h"
#include "offset_backing_store.h"
#include "source_connector_config.h"
#include "topic_offset_store.h"

namespace ksink {

std::shared_ptr<OffsetBackingStore> openOffsetStore(
    const SourceConnectorConfig& settings,
    FileOffsetStore::Access access = FileOffsetStore::Access::kReadWrite);
// The offsets topics' store, whatever the settings say of a file (an exactly-once task's).
std::shared_ptr<ConnectorOffsetStore> openTopicOffsetStore(const SourceConnectorConfig& settings);

}  // namespace ksink
