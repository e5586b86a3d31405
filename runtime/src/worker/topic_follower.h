// TopicFollower: one of Kafka Connect's internal topics (the config topic, the status topic) read
// from its beginning, every partition, and followed: each record is handed to a callback on the
// follower's thread, in each partition's order, and start() returns once what the topic held at
// the start was handed over. Read committed, with the partitions' ends as the broker sees them (a
// last transaction marker, which a Connect leader with exactly-once writes, is never delivered as
// a record). No group is joined: the partitions are assigned.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "rdkafka_handles.h"

namespace ksink {

class TopicFollower {
 public:
  // A record's key and value (nullopt: a tombstone); what it throws is logged with the record's
  // key and offset, and the follower goes on.
  using Apply =
      std::function<void(const std::string& key, const std::optional<std::string>& value)>;

  // `client_properties`: bootstrap.servers and the security keys; `what` names the topic in logs
  // and errors ("the config topic").
  TopicFollower(std::map<std::string, std::string> client_properties, std::string topic,
                std::string what);
  ~TopicFollower();
  TopicFollower(const TopicFollower&) = delete;
  TopicFollower& operator=(const TopicFollower&) = delete;

  // Reads the topic (which must exist) to its ends, handing each record to `apply`, then follows
  // it on a thread of its own. Throws std::runtime_error when it cannot be read within `timeout`.
  void start(Apply apply, std::chrono::milliseconds timeout = std::chrono::seconds(60));
  // Stops following (idempotent).
  void stop();
  // Waits until the records of `partition` below `next` were handed over: true then, false at
  // `until` or once stopped.
  bool awaitRead(int32_t partition, int64_t next, std::chrono::steady_clock::time_point until);

  const std::string& topic() const { return topic_; }

 private:
  // The partition's end offset; retried while its leader is elected, until `until`.
  int64_t endOf(int32_t partition, std::chrono::steady_clock::time_point until);
  void follow();
  void advance(int32_t partition, int64_t next);

  const std::map<std::string, std::string> client_properties_;
  const std::string topic_;
  const std::string what_;
  Apply apply_;
  KafkaHandle consumer_;
  std::thread reader_;

  std::mutex mutex_;  // guards what is below
  std::condition_variable changed_;
  std::map<int32_t, int64_t> read_;  // partition → the next offset to hand over
  bool stopping_ = false;
};

}  // namespace ksink
