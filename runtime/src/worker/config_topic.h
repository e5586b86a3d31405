// ConfigTopic: the connectors of a cluster of processes, kept in Kafka Connect's config topic
// (config.storage.topic: one partition, compacted) in Connect's record formats (ConfigRecords).
// Every process reads the whole topic and applies each record in the topic's order; a change made
// through one process's REST API is written here, and answered once this process has read it
// back and applied it, so every process applies the same changes in the same order whoever made
// them (the last writer wins, as in Connect).
//
// start() creates the topic if it is missing, applies what it holds, then follows it on a thread
// of its own. write() is called from any thread; the apply callback runs on the reader's thread,
// one record at a time.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "config_records.h"
#include "topic_follower.h"

namespace ksink {

class KafkaProducer;

class ConfigTopic {
 public:
  using Apply = std::function<void(const ConfigRecord& record)>;

  // `client_properties`: bootstrap.servers and the security keys; `replication_factor` -1: the
  // broker's default.
  ConfigTopic(std::map<std::string, std::string> client_properties, std::string topic,
              int replication_factor);
  ~ConfigTopic();
  ConfigTopic(const ConfigTopic&) = delete;
  ConfigTopic& operator=(const ConfigTopic&) = delete;

  // Creates the topic if needed, applies every record it holds (before returning), then follows
  // it. Throws std::runtime_error when it cannot be created or read.
  void start(Apply apply);
  // Stops following the topic (idempotent).
  void stop();
  // Writes `records` (in order) and returns once they were applied here. Throws
  // std::runtime_error when Kafka does not take them, or they are not read back, within `timeout`.
  void write(const std::vector<ConfigRecord>& records,
             std::chrono::milliseconds timeout = std::chrono::seconds(30));

  const std::string& topic() const { return follower_.topic(); }

 private:
  const std::map<std::string, std::string> client_properties_;
  const int replication_factor_;
  TopicFollower follower_;
  std::unique_ptr<KafkaProducer> producer_;

  std::mutex write_mutex_;  // one write() at a time; guards next_token_
  uint64_t next_token_ = 0;
  std::mutex mutex_;  // guards what is below
  std::condition_variable changed_;
  std::map<uint64_t, std::pair<bool, std::string>> deliveries_;  // token → (done, error)
  int64_t last_written_ = -1;                                    // offset of the last write
};

}  // namespace ksink
