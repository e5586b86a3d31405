#include "status_topic.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <stdexcept>
#include <utility>

#include "kafka_producer.h"
#include "ksink/record_metadata.h"
#include "topic_admin.h"

namespace ksink {
namespace {

constexpr std::chrono::seconds kStopWrites{10};

}  // namespace

StatusTopic::StatusTopic(std::map<std::string, std::string> client_properties, std::string topic,
                         int partitions, int replication_factor, std::chrono::milliseconds interval)
    : client_properties_(std::move(client_properties)),
      partitions_(partitions),
      replication_factor_(replication_factor),
      interval_(interval),
      follower_(client_properties_, std::move(topic), "the status topic") {}

StatusTopic::~StatusTopic() {
  stop();
}

void StatusTopic::start() {
  auto properties = client_properties_;
  properties["linger.ms"] = "0";
  // Java's partitioner: a key lands in the partition where Connect's workers write it.
  properties["partitioner"] = "murmur2_random";
  producer_ = std::make_unique<KafkaProducer>(
      properties, [this](uint64_t, const std::optional<std::string>& error, const RecordMetadata&) {
        if (error)
          spdlog::warn("the status topic {}: a status not written: {}", follower_.topic(), *error);
      });
  try {
    if (ensureTopic(producer_->handle(), follower_.topic(), partitions_, replication_factor_,
                    {{"cleanup.policy", "compact"}}))
      spdlog::info("created the status topic {}", follower_.topic());
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format(
        "the status topic (status.storage.topic={}) is missing and could not be created: {}",
        follower_.topic(), e.what()));
  }
  follower_.start([this](const std::string& key, const std::optional<std::string>& value) {
    const auto record = StatusRecord::read(key, value);
    if (!record) return;
    std::lock_guard lock(mutex_);
    if (record->state)
      latest_[key] = *record;
    else
      latest_.erase(key);
  });
}

void StatusTopic::publish(Current current, std::string worker_id) {
  current_ = std::move(current);
  worker_id_ = std::move(worker_id);
  publisher_ = std::thread([this] {
    for (;;) {
      publishOnce(false);
      std::unique_lock lock(mutex_);
      if (changed_.wait_for(lock, interval_, [this] { return stopping_; })) return;
    }
  });
}

void StatusTopic::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    changed_.notify_all();
  }
  if (publisher_.joinable()) publisher_.join();
  if (producer_) {
    if (current_) publishOnce(true);
    const auto until = std::chrono::steady_clock::now() + kStopWrites;
    while (producer_->inFlight() > 0 && std::chrono::steady_clock::now() < until)
      producer_->poll(std::chrono::milliseconds(50));
  }
  follower_.stop();
}

std::optional<StatusRecord> StatusTopic::task(const std::string& connector, int task) const {
  StatusRecord wanted;
  wanted.name = connector;
  wanted.task = task;
  std::lock_guard lock(mutex_);
  auto it = latest_.find(wanted.key());
  if (it == latest_.end()) return std::nullopt;
  return it->second;
}

void StatusTopic::publishOnce(bool final) {
  // A status not written now is written at the next round: nothing here may end the process.
  try {
    publishOnce(final ? std::vector<StatusRecord>() : current_(), final);
  } catch (const std::exception& e) {
    spdlog::warn("the status topic {}: statuses not published: {}", follower_.topic(), e.what());
  }
}

void StatusTopic::publishOnce(std::vector<StatusRecord> current, bool final) {
  std::set<std::string> shown;
  for (auto& record : current) {
    record.worker_id = worker_id_;
    const auto key = record.key();
    shown.insert(key);
    auto it = published_.find(key);
    if (it != published_.end() && it->second == record && !overwritten(record)) continue;
    write(record);
    published_[key] = std::move(record);
  }
  retract(shown, final);
  producer_->poll(std::chrono::milliseconds(0));
}

bool StatusTopic::overwritten(const StatusRecord& record) const {
  std::lock_guard lock(mutex_);
  auto latest = latest_.find(record.key());
  if (latest == latest_.end()) return false;  // not read back yet
  // A task runs in one process: another's record over this one's is stale (the former owner's
  // UNASSIGNED, written before it read the new owner's record).
  if (record.task)
    return latest->second.worker_id != record.worker_id || latest->second.state != record.state;
  // Every process runs every connector: one that stopped wrote it UNASSIGNED.
  return record.state != "UNASSIGNED" && latest->second.state == "UNASSIGNED";
}

void StatusTopic::retract(const std::set<std::string>& shown, bool final) {
  // Connectors no longer shown were deleted (a stop shows them all UNASSIGNED instead).
  std::set<std::string> deleted;
  for (const auto& [key, record] : published_)
    if (!record.task && !shown.contains(key) && !final) deleted.insert(record.name);
  std::map<std::string, StatusRecord> forgotten;  // a deleted connector's records, by key
  for (auto it = published_.begin(); it != published_.end();) {
    if (shown.contains(it->first)) {
      ++it;
      continue;
    }
    auto record = std::move(it->second);
    it = published_.erase(it);
    if (deleted.contains(record.name)) {
      forgotten[record.key()] = std::move(record);
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      auto latest = latest_.find(record.key());
      // Another process's now (the task moved). Not read back yet: still this process's.
      if (latest != latest_.end() && latest->second.worker_id != worker_id_) continue;
    }
    record.state = "UNASSIGNED";
    record.trace.clear();
    write(record);
  }
  if (deleted.empty()) return;
  {
    // Its records this process wrote earlier (a task it stopped before) go too.
    std::lock_guard lock(mutex_);
    for (const auto& [key, record] : latest_)
      if (deleted.contains(record.name) && record.worker_id == worker_id_) forgotten[key] = record;
  }
  for (auto& [key, record] : forgotten) {
    record.state.reset();
    write(record);
  }
}

void StatusTopic::write(const StatusRecord& record) {
  for (;;) {
    if (producer_->send({follower_.topic(), std::nullopt, record.key(), record.value(), {}, {}},
                        0) == KafkaProducer::Send::kQueued)
      return;
    producer_->poll(std::chrono::milliseconds(50));
  }
}

}  // namespace ksink
