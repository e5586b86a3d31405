// TopicPartition and OffsetMap: the coordinates every other part of the API speaks in.
//
// Offsets in an OffsetMap follow Kafka's convention: the *next* offset to read (last processed +
// 1). Plain value types; safe to copy between threads.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "ksink/detail/format_as_formatter.h"

namespace ksink {

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;

  friend auto operator<=>(const TopicPartition&, const TopicPartition&) = default;
  friend bool operator==(const TopicPartition&, const TopicPartition&) = default;
};

// Formats as "topic-partition", as Kafka's own tools print it.
inline std::string format_as(const TopicPartition& tp) {
  return fmt::format("{}-{}", tp.topic, tp.partition);
}

// Next offset to read, per partition.
using OffsetMap = std::map<TopicPartition, int64_t>;

}  // namespace ksink

template <>
struct fmt::formatter<ksink::TopicPartition>
    : ksink::detail::FormatAsFormatter<ksink::TopicPartition> {};

template <>
struct std::hash<ksink::TopicPartition> {
  size_t operator()(const ksink::TopicPartition& tp) const noexcept {
    return std::hash<std::string>{}(tp.topic) * 31 + std::hash<int32_t>{}(tp.partition);
  }
};
