#include "topic_follower.h"

#include <fmt/format.h>
#include <librdkafka/rdkafka.h>
#include <spdlog/spdlog.h>

#include <stdexcept>
#include <utility>

#include "rdkafka_timeout.h"
#include "topic_admin.h"

namespace ksink {
namespace {

std::optional<std::string> bytes(const void* data, size_t size) {
  if (!data) return std::nullopt;
  return std::string(static_cast<const char*>(data), size);
}

}  // namespace

TopicFollower::TopicFollower(std::map<std::string, std::string> client_properties,
                             std::string topic, std::string what)
    : client_properties_(std::move(client_properties)),
      topic_(std::move(topic)),
      what_(std::move(what)) {}

TopicFollower::~TopicFollower() {
  stop();
}

void TopicFollower::start(Apply apply, std::chrono::milliseconds timeout) {
  apply_ = std::move(apply);
  auto reader = client_properties_;
  reader["group.id"] = "ksink-topic-reader";  // never joins: the partitions are assigned
  reader["enable.auto.commit"] = "false";
  reader["isolation.level"] = "read_committed";
  reader["enable.partition.eof"] = "true";
  consumer_ = makeClient(RD_KAFKA_CONSUMER, reader, what_ + " reader");
  const int partitions = ensurePartitions(consumer_.get(), topic_, 1, timeout);
  std::map<int32_t, int64_t> ends;
  PartitionList assignment(rd_kafka_topic_partition_list_new(partitions));
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (int32_t p = 0; p < partitions; ++p) {
    ends[p] = endOf(p, until);
    rd_kafka_topic_partition_list_add(assignment.get(), topic_.c_str(), p)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
  }
  if (auto err = rd_kafka_assign(consumer_.get(), assignment.get()))
    throw std::runtime_error(fmt::format("{} {}: {}", what_, topic_, rd_kafka_err2str(err)));
  reader_ = std::thread([this] { follow(); });
  for (const auto& [partition, end] : ends)
    if (!awaitRead(partition, end, until))
      throw std::runtime_error(fmt::format("{} {}: not read to its end within {} s", what_, topic_,
                                           timeout.count() / 1000));
}

void TopicFollower::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    changed_.notify_all();
  }
  if (reader_.joinable()) reader_.join();
  if (consumer_) rd_kafka_consumer_close(consumer_.get());
  consumer_.reset();
}

int64_t TopicFollower::endOf(int32_t partition, std::chrono::steady_clock::time_point until) {
  for (;;) {
    int64_t low = 0, high = 0;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    const auto err = rd_kafka_query_watermark_offsets(consumer_.get(), topic_.c_str(), partition,
                                                      &low, &high, rdkafkaTimeoutMs(left));
    if (!err) return high;
    // A topic just created: its partitions' leaders are being elected.
    const bool electing = err == RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION ||
                          err == RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE ||
                          err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
    if (!electing || std::chrono::steady_clock::now() >= until)
      throw std::runtime_error(fmt::format("{} {}: the end of partition {} is unknown: {}", what_,
                                           topic_, partition, rd_kafka_err2str(err)));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

bool TopicFollower::awaitRead(int32_t partition, int64_t next,
                              std::chrono::steady_clock::time_point until) {
  std::unique_lock lock(mutex_);
  return changed_.wait_until(lock, until, [&] { return read_[partition] >= next || stopping_; }) &&
         !stopping_;
}

void TopicFollower::follow() {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
    }
    MessagePtr m(rd_kafka_consumer_poll(consumer_.get(), 200));
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      advance(m->partition, m->offset);  // past any transaction marker at the end
      continue;
    }
    if (m->err) {
      spdlog::warn("{} {}: {}", what_, topic_, rd_kafka_message_errstr(m.get()));
      continue;
    }
    const auto key = bytes(m->key, m->key_len).value_or("");
    try {
      apply_(key, bytes(m->payload, m->len));
    } catch (const std::exception& e) {
      // One record that cannot be read or applied must not stop the others.
      spdlog::error("{} {}: the record {} at offset {}: {}", what_, topic_, key, m->offset,
                    e.what());
    }
    advance(m->partition, m->offset + 1);
  }
}

void TopicFollower::advance(int32_t partition, int64_t next) {
  std::lock_guard lock(mutex_);
  auto& read = read_[partition];
  if (next <= read) return;
  read = next;
  changed_.notify_all();
}

}  // namespace ksink
