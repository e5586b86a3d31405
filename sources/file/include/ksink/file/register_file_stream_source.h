// Registers Kafka Connect's FileStreamSource: `connector.class=FileStreamSource` (or
// org.apache.kafka.connect.file.FileStreamSourceConnector) with Connect's keys `file`, `topic`,
// `batch.size`, its source partition {"filename":…} and offset {"position":…}, so a running
// Connect file source moves to ksink and back without a line read twice or missed.
#pragma once

#include "ksink/connector_registry.h"

namespace ksink {

void registerFileStreamSource(ConnectorRegistry& registry);

}  // namespace ksink
