#include "topic_offset_store.h"

#include <fmt/format.h>
#include <librdkafka/rdkafka.h>
#include <spdlog/spdlog.h>

#include <stdexcept>
#include <thread>
#include <vector>

#include "rdkafka_handles.h"
#include "rdkafka_timeout.h"
#include "topic_admin.h"

namespace ksink {
namespace {

// Reading an offsets topic to its end within one time limit; what fails names the store and
// the topic.
class TopicRead {
 public:
  TopicRead(rd_kafka_t* rk, const std::string& topic, const std::string& what,
            std::chrono::milliseconds timeout)
      : rk_(rk),
        topic_(topic),
        what_(what),
        timeout_(timeout),
        until_(std::chrono::steady_clock::now() + timeout) {}

  std::chrono::milliseconds left() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(until_ -
                                                                 std::chrono::steady_clock::now());
  }

  // The topic's partitions, once the metadata has them.
  int partitionCount() const {
    while (true) {
      const rd_kafka_metadata_t* md = nullptr;
      rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk_, topic_.c_str(), nullptr);
      const auto err = rd_kafka_metadata(rk_, 0, rkt, &md, rdkafkaTimeoutMs(left()));
      rd_kafka_topic_destroy(rkt);
      int count = 0;
      if (!err) {
        if (md->topic_cnt == 1 && !md->topics[0].err) count = md->topics[0].partition_cnt;
        rd_kafka_metadata_destroy(md);
      }
      if (count > 0) return count;
      if (left().count() <= 0)
        throw std::runtime_error(
            fmt::format("{} {}: no metadata within {} ms", what_, topic_, timeout_.count()));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  // The end offset of each of the `count` partitions that holds anything.
  std::map<int32_t, int64_t> ends(int count) const {
    std::map<int32_t, int64_t> out;
    for (int32_t p = 0; p < count; ++p) {
      int64_t low = 0, high = 0;
      rd_kafka_resp_err_t err;
      while ((err = rd_kafka_query_watermark_offsets(rk_, topic_.c_str(), p, &low, &high,
                                                     rdkafkaTimeoutMs(left()))) != 0) {
        if (left().count() <= 0)
          throw std::runtime_error(fmt::format("{} {}-{}: end offset unknown: {}", what_, topic_, p,
                                               rd_kafka_err2str(err)));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      if (high > low) out[p] = high;
    }
    return out;
  }

  void assignFromTheBeginning(const std::map<int32_t, int64_t>& ends) const {
    PartitionList assignment(rd_kafka_topic_partition_list_new(static_cast<int>(ends.size())));
    for (const auto& [p, end] : ends)
      rd_kafka_topic_partition_list_add(assignment.get(), topic_.c_str(), p)->offset =
          RD_KAFKA_OFFSET_BEGINNING;
    if (auto err = rd_kafka_assign(rk_, assignment.get()))
      throw std::runtime_error(fmt::format("{} {}: {}", what_, topic_, rd_kafka_err2str(err)));
  }

  // Drops from `ends` the partitions whose position reached their end; true when none is left.
  // A transaction marker, an aborted or a compacted-away record may hold the last offsets, so no
  // record need come at end − 1.
  bool reached(std::map<int32_t, int64_t>& ends) const {
    PartitionList positions(rd_kafka_topic_partition_list_new(static_cast<int>(ends.size())));
    for (const auto& [p, end] : ends)
      rd_kafka_topic_partition_list_add(positions.get(), topic_.c_str(), p);
    rd_kafka_position(rk_, positions.get());
    for (int i = 0; i < positions->cnt; ++i)
      if (positions->elems[i].offset >= 0 &&
          positions->elems[i].offset >= ends.at(positions->elems[i].partition))
        ends.erase(positions->elems[i].partition);
    return ends.empty();
  }

 private:
  rd_kafka_t* const rk_;
  const std::string& topic_;
  const std::string& what_;
  const std::chrono::milliseconds timeout_;
  const std::chrono::steady_clock::time_point until_;
};

}  // namespace

TopicOffsetStore::TopicOffsetStore(std::map<std::string, std::string> client_properties,
                                   std::string topic, int partitions, int replication_factor,
                                   Role role, std::chrono::milliseconds read_timeout)
    : client_properties_(std::move(client_properties)),
      topic_(std::move(topic)),
      role_(std::move(role)),
      partitions_(partitions),
      replication_factor_(replication_factor),
      read_timeout_(read_timeout) {}

TopicOffsetStore::~TopicOffsetStore() = default;

void TopicOffsetStore::start() {
  // Connect's offsets producer (KafkaOffsetBackingStore + KafkaBasedLog): acks=all, retried
  // without end; idempotent here so a retry writes no duplicate; Java's partitioner so an entry
  // lands where Connect writes the same key.
  auto properties = client_properties_;
  properties["acks"] = "all";
  properties["enable.idempotence"] = "true";
  properties["partitioner"] = "murmur2_random";
  // Bounded, unlike Connect's: a write that cannot be delivered fails (its entries go back for
  // the next cycle) instead of piling up behind a broker that stays away.
  properties["message.timeout.ms"] = "60000";
  properties["linger.ms"] = "0";
  producer_ = std::make_unique<KafkaProducer>(
      properties, [this](uint64_t token, const std::optional<std::string>& error,
                         const RecordMetadata&) { onDelivery(token, error); });
  try {
    if (ensureTopic(producer_->handle(), topic_, partitions_, replication_factor_,
                    {{"cleanup.policy", "compact"}}))
      spdlog::info("created the {} {} ({} partitions)", role_.name, topic_, partitions_);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("the {} ({}={}) is missing and could not be created: {}",
                                         role_.name, role_.key, topic_, e.what()));
  }
  checkCompacted();
  readToEnd();
}

void TopicOffsetStore::checkCompacted() {
  const auto policy = topicConfig(producer_->handle(), topic_, "cleanup.policy");
  if (!policy) {  // as Connect: it cannot tell, so it goes on
    spdlog::warn(
        "the {} {}: its cleanup.policy cannot be read (DescribeConfigs refused?); it must "
        "be compact",
        role_.name, topic_);
    return;
  }
  if (*policy != "compact")
    throw std::runtime_error(fmt::format(
        "the {} {} ({}) has cleanup.policy={}: it must be compact (only), as Kafka Connect "
        "requires, or the broker deletes the entries by age and the connector loses what they "
        "record (a source would start over). Set cleanup.policy=compact on the topic, or name "
        "another in {}",
        role_.name, topic_, role_.key, *policy, role_.key));
}

void TopicOffsetStore::readToEnd() {
  auto properties = client_properties_;
  properties["group.id"] = "ksink-offsets-reader";  // never joins: partitions are assigned
  properties["enable.auto.commit"] = "false";
  properties["enable.partition.eof"] = "true";
  properties["isolation.level"] = "read_committed";  // Connect's offsets consumers read so
  auto rk = makeClient(RD_KAFKA_CONSUMER, properties, "offset store client");
  const TopicRead read(rk.get(), topic_, role_.name, read_timeout_);
  auto ends = read.ends(read.partitionCount());
  if (ends.empty()) return;
  read.assignFromTheBeginning(ends);
  size_t records = 0;
  while (!read.reached(ends)) {
    if (read.left().count() <= 0)
      throw std::runtime_error(fmt::format("{} {}: not read to its end within {} ms", role_.name,
                                           topic_, read_timeout_.count()));
    MessagePtr m(rd_kafka_consumer_poll(rk.get(), 100));
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      // At the end as the broker sees it: the position need not move past a last marker.
      if (auto it = ends.find(m->partition); it != ends.end() && m->offset >= it->second)
        ends.erase(it);
      continue;
    }
    if (m->err) {
      spdlog::warn("{} {}: {}", role_.name, topic_, rd_kafka_message_errstr(m.get()));
      continue;
    }
    ++records;
    if (!m->key) continue;
    std::optional<std::string> value;  // none: a tombstone, the offset was reset
    if (m->payload) value.emplace(static_cast<const char*>(m->payload), m->len);
    remember({{std::string(static_cast<const char*>(m->key), m->key_len), std::move(value)}});
  }
  rd_kafka_consumer_close(rk.get());
  spdlog::info("{} {}: read {} record(s), {} entries", role_.name, topic_, records,
               entries_.size());
}

void TopicOffsetStore::write(const OffsetEntries& entries, Done done) {
  const uint64_t id = next_write_++;
  auto& w = writes_[id];
  w.remaining = entries.size();
  w.entries = entries;
  w.done = std::move(done);
  for (const auto& [key, value] : entries) {
    detail::ProducerRecordBytes record{topic_, std::nullopt, key, value, {}, std::nullopt};
    try {
      // A full queue fails the write (it is retried with the newest offsets next cycle) rather
      // than waiting here, where the caller holds its task's lock.
      if (producer_->send(record, id) == KafkaProducer::Send::kQueueFull) {
        if (!w.error) w.error = "the offsets producer's queue is full";
        --w.remaining;
      }
    } catch (const std::exception& e) {
      if (!w.error) w.error = e.what();
      --w.remaining;
    }
  }
  if (w.remaining == 0) onDelivery(id, w.error);
}

void TopicOffsetStore::onDelivery(uint64_t token, const std::optional<std::string>& error) {
  auto it = writes_.find(token);
  if (it == writes_.end()) return;
  auto& w = it->second;
  if (error && !w.error) w.error = error;
  if (w.remaining > 0) --w.remaining;
  if (w.remaining > 0) return;
  if (!w.error) remember(w.entries);
  auto done = std::move(w.done);
  auto result = w.error;
  writes_.erase(it);
  done(result);
}

void TopicOffsetStore::remember(const OffsetEntries& entries) {
  for (const auto& [key, value] : entries) {
    if (value) {
      reset_.erase(key);
      entries_.insert_or_assign(key, *value);
    } else {
      entries_.erase(key);
      reset_.insert(key);
    }
  }
}

void TopicOffsetStore::poll(std::chrono::milliseconds timeout) {
  if (producer_) producer_->poll(timeout);
}

void TopicOffsetStore::drain(std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (!writes_.empty() && std::chrono::steady_clock::now() < until)
    poll(std::chrono::milliseconds(10));
}

std::optional<std::string> TopicOffsetStore::get(std::string_view key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> TopicOffsetStore::keys() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& [key, value] : entries_) out.push_back(key);
  return out;
}

}  // namespace ksink
