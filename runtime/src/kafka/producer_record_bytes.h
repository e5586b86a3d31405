// ProducerRecordBytes: a record as the producer sends it, converted to bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ksink::detail {

struct ProducerRecordBytes {
  std::string topic;
  std::optional<int32_t> partition;  // nullopt: the partitioner picks (murmur2 of the key)
  std::optional<std::string> key;
  std::optional<std::string> value;  // nullopt: a tombstone
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
  std::optional<int64_t> timestamp;  // ms since the epoch; nullopt: the producer stamps it
};

}  // namespace ksink::detail
