// TopicOffsetStore: source offsets in a compacted Kafka topic, as Kafka Connect's distributed
// worker keeps them (KafkaOffsetBackingStore): one record per entry, key and value the entry's
// bytes, a tombstone for a null offset, partitioned by murmur2 of the key as Java's producer does
// — so Connect and ksink read and write the same topic.
//
// start() creates the topic if it is missing (compacted, with the configured partitions and
// replication factor) and refuses one that is not compacted (cleanup.policy=compact only, as
// Connect requires of its offsets topics: a topic that deletes by age would lose the offsets and
// the source would start over), then reads it to its end. Writes go through an idempotent acks=all
// producer; an entry is visible to get() once Kafka acknowledged it.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>

#include "kafka_producer.h"
#include "offset_backing_store.h"

namespace ksink {

// What a TopicOffsetStore's topic is for, in messages: its name and the key that names it.
struct OffsetTopicRole {
  std::string name = "offsets topic";
  std::string key = "offset.storage.topic";
};

class TopicOffsetStore final : public OffsetBackingStore {
 public:
  using Role = OffsetTopicRole;
  // `client_properties`: bootstrap.servers and the security keys.
  TopicOffsetStore(std::map<std::string, std::string> client_properties, std::string topic,
                   int partitions, int replication_factor, Role role = {},
                   std::chrono::milliseconds read_timeout = std::chrono::seconds(60));
  ~TopicOffsetStore() override;

  void start() override;
  void write(const OffsetEntries& entries, Done done) override;
  void poll(std::chrono::milliseconds timeout) override;
  void drain(std::chrono::milliseconds timeout) override;
  std::optional<std::string> get(std::string_view key) const override;
  std::vector<std::string> keys() const override;

  const std::string& topic() const { return topic_; }
  // Whether the last entry read or written for `key` was a tombstone (the offset was reset), as
  // opposed to the key never having been stored.
  bool wasReset(std::string_view key) const { return reset_.contains(key); }
  // Entries an exactly-once task wrote itself, in the transaction of its records, once that
  // committed: visible to get() from now on.
  void remember(const OffsetEntries& entries);

 private:
  struct Write {
    size_t remaining;
    OffsetEntries entries;
    std::optional<std::string> error;
    Done done;
  };
  void checkCompacted();
  void readToEnd();
  void onDelivery(uint64_t token, const std::optional<std::string>& error);

  const std::map<std::string, std::string> client_properties_;
  const std::string topic_;
  const Role role_;
  const int partitions_;
  const int replication_factor_;
  const std::chrono::milliseconds read_timeout_;
  std::map<std::string, std::string, std::less<>> entries_;
  std::set<std::string, std::less<>> reset_;
  std::map<uint64_t, Write> writes_;
  uint64_t next_write_ = 0;
  std::unique_ptr<KafkaProducer> producer_;
};

}  // namespace ksink
