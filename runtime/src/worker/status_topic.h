// StatusTopic: the statuses of a cluster's connectors and tasks, kept in Kafka Connect's status
// topic (status.storage.topic: compacted, keyed by StatusRecords' keys) in Connect's record
// format, so that any process answers for the whole cluster: a task that runs in another process
// is shown as that process last wrote it, with its worker_id.
//
// Every process reads the whole topic (the last record of each key wins, whoever wrote it) and
// publishes its own statuses: what the herder shows now, every `interval`, writing what changed
// and what another process wrote over it (a task's record written UNASSIGNED by its former owner
// after the new one's). A key it published that it no longer shows is written over, as Connect's
// workers do, only while the topic's last record for it is still this process's (the task may run
// elsewhere now): UNASSIGNED for a task it stopped, a tombstone once the connector was deleted. At
// stop, every key still this process's is written UNASSIGNED (its tasks run nowhere until another
// process takes them); the processes still running the connector then write its state again. A
// process killed leaves its records until the task's new owner writes.
//
// ksink has no cluster-wide generation: records are written with generation 0, which lets a
// Connect worker write over them (the migration back).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "status_records.h"
#include "topic_follower.h"

namespace ksink {

class KafkaProducer;

class StatusTopic {
 public:
  // This process's statuses now; worker_id is filled in here.
  using Current = std::function<std::vector<StatusRecord>()>;

  // `client_properties`: bootstrap.servers and the security keys; `partitions` and
  // `replication_factor` (-1: the broker's default) for a topic created here.
  StatusTopic(std::map<std::string, std::string> client_properties, std::string topic,
              int partitions, int replication_factor,
              std::chrono::milliseconds interval = std::chrono::milliseconds(500));
  ~StatusTopic();
  StatusTopic(const StatusTopic&) = delete;
  StatusTopic& operator=(const StatusTopic&) = delete;

  // Creates the topic if it is missing and reads it to its end. Throws std::runtime_error when it
  // cannot be created or read.
  void start();
  // From then on, publishes `current` as `worker_id` every interval.
  void publish(Current current, std::string worker_id);
  // Publishes once more with nothing current (every key still this process's UNASSIGNED), waits
  // for the writes (up to 10 s) and stops reading (idempotent).
  void stop();

  // What the cluster's processes last wrote of the connector's task; nullopt when nothing, or a
  // tombstone.
  std::optional<StatusRecord> task(const std::string& connector, int task) const;

 private:
  // Publishes what the herder shows (nothing, when `final`); logs what fails.
  void publishOnce(bool final);
  // Writes what changed between `current` and what this process published last, and what the
  // topic holds over it (overwritten()).
  void publishOnce(std::vector<StatusRecord> current, bool final);
  // A record this process shows that the topic holds otherwise: a task's written over by another
  // process (its former owner), a connector's written UNASSIGNED by a process that stopped.
  bool overwritten(const StatusRecord& record) const;
  // The keys this process published and no longer shows: written over while still its own.
  void retract(const std::set<std::string>& shown, bool final);
  void write(const StatusRecord& record);

  const std::map<std::string, std::string> client_properties_;
  const int partitions_;
  const int replication_factor_;
  const std::chrono::milliseconds interval_;
  TopicFollower follower_;
  std::unique_ptr<KafkaProducer> producer_;

  Current current_;
  std::string worker_id_;
  std::thread publisher_;
  std::map<std::string, StatusRecord> published_;  // the publisher's: key → as last written

  mutable std::mutex mutex_;  // guards what is below
  std::condition_variable changed_;
  std::map<std::string, StatusRecord> latest_;  // key → the topic's last record (no tombstones)
  bool stopping_ = false;
};

}  // namespace ksink
