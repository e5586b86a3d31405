// openOffsetStore: where a source connector's offsets live — Connect standalone's file when
// offset.storage.file.filename names one (one store per file per process), else the offsets
// topic (offset.storage.topic).
#pragma once

#include <memory>

#include "offset_backing_store.h"
#include "source_connector_config.h"

namespace ksink {

std::shared_ptr<OffsetBackingStore> openOffsetStore(const SourceConnectorConfig& settings);

}  // namespace ksink
