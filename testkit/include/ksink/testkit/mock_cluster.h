// MockCluster: librdkafka's embedded mock broker as an RAII test fixture (the test kit's broker,
// and the one of ksink's own worker tests), plus the client-side helpers those tests need: create
// topics, produce records (keys, values, headers, timestamps), read a group's committed offsets
// back from the broker, seed committed offsets, and inject faults (request errors, slow or
// unreachable brokers).
//
// Where the mock (librdkafka 2.0.2's rdkafka_mock) differs from Kafka, as measured; the ones every
// test meets: a group's first join takes 3 s, later rebalances session.timeout.ms − 1000, each
// partition keeps at most 5 MiB, and a commit from an eager revoke callback gets
// REBALANCE_IN_PROGRESS.
//
// Thread-safety: the fault-injection calls may be made from any thread while workers run; produce()
// and the offset helpers from one test thread at a time.
#pragma once

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>  // must follow rdkafka.h

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ksink/topic_partition.h"

namespace ksink::testkit {

// Kafka protocol ApiKeys (rdkafka_protocol.h is not installed).
enum ApiKey : int16_t {
  kProduce = 0,
  kOffsetCommit = 8,
  kOffsetFetch = 9,
  kFindCoordinator = 10,
  kJoinGroup = 11,
  kHeartbeat = 12,
  kSyncGroup = 14,
};

struct TestRecord {
  std::optional<std::string> key = {};
  std::optional<std::string> value = {};  // nullopt: a tombstone
  std::vector<std::pair<std::string, std::optional<std::string>>> headers = {};
  // Milliseconds since the epoch; 0 lets the producer stamp the current time, -1 sends none.
  int64_t timestamp = 0;
};

class MockCluster {
 public:
  explicit MockCluster(int brokers = 1);
  // Waits (bounded) until every other Kafka client of the process is gone, so a consumer a worker
  // abandoned in the background cannot outlive the test (one still running then is reported as a
  // test failure), then destroys the cluster.
  ~MockCluster();
  MockCluster(const MockCluster&) = delete;
  MockCluster& operator=(const MockCluster&) = delete;

  const std::string& bootstrap() const { return bootstrap_; }
  rd_kafka_mock_cluster_t* handle() const { return cluster_; }

  void createTopic(const std::string& topic, int partitions);

  // Produces and waits for the acknowledgements; returns the offsets the records got.
  std::vector<int64_t> produce(const std::string& topic, int32_t partition,
                               const std::vector<TestRecord>& records);
  // `count` records with key "k<i>" and value "<prefix><i>", i = first .. first + count - 1.
  std::vector<int64_t> produceValues(const std::string& topic, int32_t partition, int count,
                                     const std::string& prefix = "v", int first = 0);

  // The group's committed offsets for `partitions`, read from the broker with a throwaway
  // consumer; partitions without a committed offset are left out.
  OffsetMap committed(const std::string& group, const std::vector<TopicPartition>& partitions);
  std::optional<int64_t> committed(const std::string& group, const TopicPartition& tp);
  // Polls until committed(group, tp) == offset; returns the last value read.
  std::optional<int64_t> waitForCommitted(const std::string& group, const TopicPartition& tp,
                                          int64_t offset, std::chrono::milliseconds timeout);
  // Commits `offsets` for a group that has never had members (a "given committed(tp) = n" setup;
  // the mock refuses simple commits into a group that had members).
  void seedCommitted(const std::string& group, const OffsetMap& offsets);

  // The next `errors.size()` requests of `api_key` (to any broker) fail with these errors.
  void pushRequestErrors(ApiKey api_key, const std::vector<rd_kafka_resp_err_t>& errors);
  // The next requests of `api_key` that reach `broker` are answered after these delays, each with
  // its error (NO_ERROR for a slow success).
  void pushBrokerRequestRtts(int32_t broker, ApiKey api_key,
                             const std::vector<std::pair<rd_kafka_resp_err_t, int>>& errors_rtts);
  void setBrokerDown(int32_t broker);
  void setBrokerUp(int32_t broker);
  // Adds `rtt` to every response `broker` sends from now on (requests already queued keep theirs).
  void setBrokerRtt(int32_t broker, std::chrono::milliseconds rtt);
  void setGroupCoordinator(const std::string& group, int32_t broker);
  void setPartitionLeader(const std::string& topic, int32_t partition, int32_t broker);

 private:
  rd_kafka_t* host_ = nullptr;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
  rd_kafka_t* producer_ = nullptr;
  int own_threads_ = 0;  // librdkafka threads of the cluster and its host handle
  std::string bootstrap_;
};

}  // namespace ksink::testkit
