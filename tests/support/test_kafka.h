// Test access to a real Apache Kafka broker for the integration tests.
//
// RealKafka::shared() is the broker named by KSINK_TEST_BOOTSTRAP (scripts/test starts one for the
// whole run) or, when unset, one this test binary starts itself with integration/kafka/start.sh
// and stops at exit: a test never skips because no broker is running.
// The helpers talk to the broker with librdkafka directly (no JVM per call).
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ksink/topic_partition.h"

namespace ksink::it {

// A broker process run by integration/kafka/start.sh in its own work directory.
class KafkaBrokerProcess {
 public:
  // `sasl_plain` ("user:password") adds a SASL_PLAINTEXT listener with that one PLAIN user.
  explicit KafkaBrokerProcess(std::filesystem::path workdir, std::string sasl_plain = "");
  ~KafkaBrokerProcess();
  // Starts (or restarts, keeping data and ports) the broker; returns its bootstrap address.
  std::string start();
  void stop();
  const std::string& bootstrap() const { return bootstrap_; }
  // The SASL_PLAINTEXT listener's address (empty without `sasl_plain`).
  std::string saslBootstrap() const;

 private:
  std::filesystem::path workdir_;
  std::string sasl_plain_;
  std::string bootstrap_;
  bool running_ = false;
};

class RealKafka {
 public:
  explicit RealKafka(std::string bootstrap);
  ~RealKafka();
  static RealKafka& shared();

  const std::string& bootstrap() const { return bootstrap_; }

  // Creates a topic (replication factor 1, with these topic configs) and waits until its
  // partitions have leaders.
  void createTopic(const std::string& topic, int partitions,
                   const std::map<std::string, std::string>& configs = {});
  // Deletes a topic and its data (a benchmark's gigabytes); throws unless the broker accepted it.
  void deleteTopic(const std::string& topic);
  // Produces and waits for every delivery report; throws on any delivery error.
  struct Message {
    int partition;
    std::optional<std::string> key;
    std::optional<std::string> value;
    std::vector<std::pair<std::string, std::string>> headers = {};
    std::optional<int64_t> timestamp = std::nullopt;  // ms; nullopt: the producer's clock
  };
  void produce(const std::string& topic, const std::vector<Message>& messages);
  // `count` messages spread round-robin over `partitions`, value "<prefix><i>", key "k<i>".
  void produceSequence(const std::string& topic, int partitions, int count,
                       const std::string& prefix = "v", int first = 0);

  // The group's committed offsets for these partitions, read from the broker; partitions without
  // a commit are left out.
  OffsetMap committed(const std::string& group, const std::string& topic, int partitions);
  int64_t endOffset(const TopicPartition& tp);
  // A topic as the broker describes it: its partitions (0 when it does not exist) and the configs
  // set on the topic itself (not the broker's defaults).
  struct TopicDescription {
    int partitions = 0;
    std::map<std::string, std::string> configs;
  };
  TopicDescription describeTopic(const std::string& topic);
  // How many members the consumer group has now, as its coordinator reports them (0 when the
  // group is empty or unknown).
  int groupMembers(const std::string& group);

  // Polls `committed` until it equals `expected` or `timeout` passes; returns the last value read.
  OffsetMap waitForCommitted(const std::string& group, const std::string& topic, int partitions,
                             const OffsetMap& expected, std::chrono::milliseconds timeout);

 private:
  struct Clients;
  std::string bootstrap_;
  std::unique_ptr<Clients> clients_;
};

// A unique, readable name for a topic or connector.
std::string uniqueName(const std::string& prefix);
// A fresh directory under the system temp dir, kept after the test for post-mortems.
std::filesystem::path freshDir(const std::string& prefix);

}  // namespace ksink::it
