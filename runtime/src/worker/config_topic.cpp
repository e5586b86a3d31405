#include "config_topic.h"

#include <fmt/format.h>
#include <librdkafka/rdkafka.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "kafka_producer.h"
#include "ksink/record_metadata.h"
#include "rdkafka_timeout.h"
#include "topic_admin.h"

namespace ksink {
namespace {

constexpr std::chrono::milliseconds kReadTimeout{60000};

std::optional<std::string> bytes(const void* data, size_t size) {
  if (!data) return std::nullopt;
  return std::string(static_cast<const char*>(data), size);
}

}  // namespace

ConfigTopic::ConfigTopic(std::map<std::string, std::string> client_properties, std::string topic,
                         int replication_factor)
    : client_properties_(std::move(client_properties)),
      topic_(std::move(topic)),
      replication_factor_(replication_factor) {}

ConfigTopic::~ConfigTopic() {
  stop();
}

void ConfigTopic::start(Apply apply) {
  apply_ = std::move(apply);
  // Connect's config producer: acks=all, idempotent (one partition, so the order is the topic's).
  auto properties = client_properties_;
  properties["acks"] = "all";
  properties["enable.idempotence"] = "true";
  properties["linger.ms"] = "0";
  producer_ = std::make_unique<KafkaProducer>(
      properties, [this](uint64_t token, const std::optional<std::string>& error,
                         const RecordMetadata& metadata) {
        std::lock_guard lock(mutex_);
        deliveries_[token] = {true, error.value_or("")};
        if (!error && metadata.offset) last_written_ = std::max(last_written_, *metadata.offset);
        changed_.notify_all();
      });
  try {
    if (ensureTopic(producer_->handle(), topic_, 1, replication_factor_,
                    {{"cleanup.policy", "compact"}}))
      spdlog::info("created the config topic {}", topic_);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format(
        "the config topic (config.storage.topic={}) is missing and could not be created: {}",
        topic_, e.what()));
  }
  auto reader = client_properties_;
  reader["group.id"] = "ksink-config-reader";  // never joins: the partition is assigned
  reader["enable.auto.commit"] = "false";
  reader["isolation.level"] = "read_committed";
  // The end as the broker sees it: a last transaction marker (a Connect leader with exactly-once
  // writes its config topic in transactions) is never delivered as a record.
  reader["enable.partition.eof"] = "true";
  consumer_ = makeClient(RD_KAFKA_CONSUMER, reader, "config topic reader");
  int64_t low = 0, high = 0;
  if (auto err = rd_kafka_query_watermark_offsets(consumer_.get(), topic_.c_str(), 0, &low, &high,
                                                  rdkafkaTimeoutMs(kReadTimeout)))
    throw std::runtime_error(
        fmt::format("the config topic {}: its end is unknown: {}", topic_, rd_kafka_err2str(err)));
  PartitionList assignment(rd_kafka_topic_partition_list_new(1));
  rd_kafka_topic_partition_list_add(assignment.get(), topic_.c_str(), 0)->offset =
      RD_KAFKA_OFFSET_BEGINNING;
  if (auto err = rd_kafka_assign(consumer_.get(), assignment.get()))
    throw std::runtime_error(fmt::format("the config topic {}: {}", topic_, rd_kafka_err2str(err)));
  reader_ = std::thread([this] { follow(); });
  // What the topic holds is applied before start() returns: the process starts with the cluster's
  // connectors, not with none.
  std::unique_lock lock(mutex_);
  if (!changed_.wait_for(lock, kReadTimeout, [&] { return read_ >= high || stopping_; }))
    throw std::runtime_error(
        fmt::format("the config topic {}: not read to its end ({}) within {} s", topic_, high,
                    kReadTimeout.count() / 1000));
  spdlog::info("config topic {}: {} record(s) applied", topic_, read_);
}

void ConfigTopic::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    changed_.notify_all();
  }
  if (reader_.joinable()) reader_.join();
  if (consumer_) rd_kafka_consumer_close(consumer_.get());
  consumer_.reset();
}

void ConfigTopic::follow() {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
    }
    MessagePtr m(rd_kafka_consumer_poll(consumer_.get(), 200));
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      std::lock_guard lock(mutex_);
      if (m->offset > read_) {
        read_ = m->offset;
        changed_.notify_all();
      }
      continue;
    }
    if (m->err) {
      spdlog::warn("config topic {}: {}", topic_, rd_kafka_message_errstr(m.get()));
      continue;
    }
    const auto key = bytes(m->key, m->key_len).value_or("");
    try {
      if (auto record = ConfigRecord::read(key, bytes(m->payload, m->len))) apply_(*record);
    } catch (const std::exception& e) {
      // One record that cannot be read or applied must not stop the cluster's others.
      spdlog::error("config topic {}: the record {} at offset {}: {}", topic_, key, m->offset,
                    e.what());
    }
    applied(m->offset + 1);
  }
}

void ConfigTopic::applied(int64_t next) {
  std::lock_guard lock(mutex_);
  read_ = next;
  changed_.notify_all();
}

void ConfigTopic::write(const std::vector<ConfigRecord>& records,
                        std::chrono::milliseconds timeout) {
  std::lock_guard one(write_mutex_);
  if (!producer_) throw std::logic_error("the config topic is not read yet");
  const auto until = std::chrono::steady_clock::now() + timeout;
  std::vector<uint64_t> tokens;
  for (const auto& record : records) {
    const uint64_t token = next_token_++;
    {
      std::lock_guard lock(mutex_);
      deliveries_[token] = {false, ""};
    }
    producer_->send({topic_, 0, record.key(), record.value(), {}, std::nullopt}, token);
    tokens.push_back(token);
  }
  std::string error;
  for (;;) {
    producer_->poll(std::chrono::milliseconds(50));
    std::lock_guard lock(mutex_);
    const bool done =
        std::all_of(tokens.begin(), tokens.end(), [&](uint64_t t) { return deliveries_[t].first; });
    if (done || std::chrono::steady_clock::now() >= until) {
      for (auto t : tokens) {
        if (!deliveries_[t].first) error = "not acknowledged in time";
        if (error.empty() && !deliveries_[t].second.empty()) error = deliveries_[t].second;
        deliveries_.erase(t);
      }
      break;
    }
  }
  if (!error.empty())
    throw std::runtime_error(
        fmt::format("the config topic {}: a change was not written: {}", topic_, error));
  // Answered once applied here: what the caller reads next includes it.
  std::unique_lock lock(mutex_);
  const int64_t wanted = last_written_ + 1;
  if (!changed_.wait_until(lock, until, [&] { return read_ >= wanted || stopping_; }))
    throw std::runtime_error(
        fmt::format("the config topic {}: a change was written but not read back in time", topic_));
}

}  // namespace ksink
