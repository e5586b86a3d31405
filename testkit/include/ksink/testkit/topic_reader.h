// Reads what a topic partition holds, from the beginning, with a throwaway consumer: for tests
// that check what ksink wrote to Kafka (the dead-letter queue, a source's transactions).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ksink::testkit {

struct ConsumedRecord {
  int64_t offset = 0;  // where the record is in its partition
  std::optional<std::string> key;
  std::optional<std::string> value;
  int64_t timestamp = 0;
  std::map<std::string, std::string> headers;  // a null header value reads as "<null>"
};

// Up to `expected` records of `topic`-`partition`, waiting at most `timeout` for them.
std::vector<ConsumedRecord> readPartition(const std::string& bootstrap, const std::string& topic,
                                          int32_t partition, size_t expected,
                                          std::chrono::milliseconds timeout);

// Every record of `topic`-`partition` a read_committed consumer sees (committed transactions and
// records written outside any), read until its position passed the partition's end as it was
// when called (transaction markers and aborted records included). Throws std::runtime_error when
// that takes longer than `timeout` (an open transaction holds the read back).
std::vector<ConsumedRecord> readCommitted(const std::string& bootstrap, const std::string& topic,
                                          int32_t partition, std::chrono::milliseconds timeout);

}  // namespace ksink::testkit
