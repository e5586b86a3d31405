#include "config_topic.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "kafka_producer.h"
#include "ksink/record_metadata.h"
#include "topic_admin.h"

namespace ksink {
namespace {

constexpr std::chrono::milliseconds kReadTimeout{60000};

}  // namespace

ConfigTopic::ConfigTopic(std::map<std::string, std::string> client_properties, std::string topic,
                         int replication_factor)
    : client_properties_(std::move(client_properties)),
      replication_factor_(replication_factor),
      follower_(client_properties_, std::move(topic), "the config topic") {}

ConfigTopic::~ConfigTopic() {
  stop();
}

void ConfigTopic::start(Apply apply) {
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
    if (ensureTopic(producer_->handle(), topic(), 1, replication_factor_,
                    {{"cleanup.policy", "compact"}}))
      spdlog::info("created the config topic {}", topic());
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format(
        "the config topic (config.storage.topic={}) is missing and could not be created: {}",
        topic(), e.what()));
  }
  // What the topic holds is applied before start() returns: the process starts with the cluster's
  // connectors, not with none.
  follower_.start(
      [apply = std::move(apply)](const std::string& key, const std::optional<std::string>& value) {
        if (auto record = ConfigRecord::read(key, value)) apply(*record);
      },
      kReadTimeout);
  spdlog::info("config topic {} read", topic());
}

void ConfigTopic::stop() {
  follower_.stop();
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
    producer_->send({topic(), 0, record.key(), record.value(), {}, std::nullopt}, token);
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
        fmt::format("the config topic {}: a change was not written: {}", topic(), error));
  // Answered once applied here: what the caller reads next includes it.
  int64_t wanted = 0;
  {
    std::lock_guard lock(mutex_);
    wanted = last_written_ + 1;
  }
  if (!follower_.awaitRead(0, wanted, until))
    throw std::runtime_error(fmt::format(
        "the config topic {}: a change was written but not read back in time", topic()));
}

}  // namespace ksink
