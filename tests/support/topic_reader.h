// Reads what a topic partition holds, from the beginning, with a throwaway consumer: for tests
// that check what ksink wrote to Kafka (the dead-letter queue).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ksink::test {

struct ConsumedRecord {
  std::optional<std::string> key;
  std::optional<std::string> value;
  int64_t timestamp = 0;
  std::map<std::string, std::string> headers;  // a null header value reads as "<null>"
};

// Up to `expected` records of `topic`-`partition`, waiting at most `timeout` for them.
std::vector<ConsumedRecord> readPartition(const std::string& bootstrap, const std::string& topic,
                                          int32_t partition, size_t expected,
                                          std::chrono::milliseconds timeout);

}  // namespace ksink::test
