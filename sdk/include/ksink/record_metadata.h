// RecordMetadata: where Kafka put a record a source task produced (Kafka's RecordMetadata, as
// SourceTask::commitRecord() receives it). A plain value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ksink {

struct RecordMetadata {
  std::string topic;
  int32_t partition = 0;
  std::optional<int64_t> offset;     // nullopt when the broker did not say (acks=0)
  std::optional<int64_t> timestamp;  // the record's timestamp as Kafka stored it, if known
  friend bool operator==(const RecordMetadata&, const RecordMetadata&) = default;
};

}  // namespace ksink
