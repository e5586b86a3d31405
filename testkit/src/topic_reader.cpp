#include "ksink/testkit/topic_reader.h"

#include <librdkafka/rdkafka.h>

#include <stdexcept>

#include "rdkafka_handles.h"

namespace ksink::testkit {

namespace {

// A consumer of `topic`-`partition` from its beginning (read_committed: librdkafka's default).
rd_kafka_t* openReader(const std::string& bootstrap, const std::string& topic, int32_t partition) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof err);
  rd_kafka_conf_set(conf, "group.id", "ksink-test-reader", err, sizeof err);
  rd_kafka_conf_set(conf, "isolation.level", "read_committed", err, sizeof err);
  rd_kafka_conf_set(conf, "log_level", "2", err, sizeof err);
  rd_kafka_t* consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  rd_kafka_poll_set_consumer(consumer);
  auto* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, topic.c_str(), partition)->offset =
      RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_assign(consumer, list);
  rd_kafka_topic_partition_list_destroy(list);
  return consumer;
}

ConsumedRecord recordOf(const rd_kafka_message_t* m) {
  ConsumedRecord r;
  r.offset = m->offset;
  if (m->key) r.key = std::string(static_cast<const char*>(m->key), m->key_len);
  if (m->payload) r.value = std::string(static_cast<const char*>(m->payload), m->len);
  r.timestamp = rd_kafka_message_timestamp(m, nullptr);
  rd_kafka_headers_t* headers = nullptr;
  if (!rd_kafka_message_headers(m, &headers)) {
    const char* name;
    const void* value;
    size_t size;
    for (size_t i = 0; !rd_kafka_header_get_all(headers, i, &name, &value, &size); ++i)
      r.headers[name] = value ? std::string(static_cast<const char*>(value), size) : "<null>";
  }
  return r;
}

// Waits a moment for `consumer`'s next message and appends it to `out`; an error the consumer
// reports (e.g. the partition's end reached) is not a record and is passed over.
void pollInto(rd_kafka_t* consumer, std::vector<ConsumedRecord>& out) {
  const MessagePtr m(rd_kafka_consumer_poll(consumer, 100));
  if (m && !m->err) out.push_back(recordOf(m.get()));
}

void closeReader(rd_kafka_t* consumer) {
  rd_kafka_consumer_close(consumer);
  rd_kafka_destroy(consumer);
}

}  // namespace

std::vector<ConsumedRecord> readPartition(const std::string& bootstrap, const std::string& topic,
                                          int32_t partition, size_t expected,
                                          std::chrono::milliseconds timeout) {
  rd_kafka_t* consumer = openReader(bootstrap, topic, partition);
  std::vector<ConsumedRecord> out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (out.size() < expected && std::chrono::steady_clock::now() < deadline)
    pollInto(consumer, out);
  closeReader(consumer);
  return out;
}

std::vector<ConsumedRecord> readCommitted(const std::string& bootstrap, const std::string& topic,
                                          int32_t partition, std::chrono::milliseconds timeout) {
  rd_kafka_t* consumer = openReader(bootstrap, topic, partition);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int64_t low = 0, high = -1;
  while (rd_kafka_query_watermark_offsets(consumer, topic.c_str(), partition, &low, &high, 1000) !=
         RD_KAFKA_RESP_ERR_NO_ERROR) {
    if (std::chrono::steady_clock::now() >= deadline) {
      closeReader(consumer);
      throw std::runtime_error("readCommitted: no end offset for " + topic);
    }
  }
  std::vector<ConsumedRecord> out;
  auto position = [&] {
    auto* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, topic.c_str(), partition);
    rd_kafka_position(consumer, list);
    const int64_t at = list->elems[0].offset;
    rd_kafka_topic_partition_list_destroy(list);
    return at;
  };
  while (high > low && position() < high) {
    if (std::chrono::steady_clock::now() >= deadline) {
      closeReader(consumer);
      throw std::runtime_error("readCommitted: " + topic + " not read to its end in time (" +
                               std::to_string(out.size()) + " records read)");
    }
    pollInto(consumer, out);
  }
  closeReader(consumer);
  return out;
}

}  // namespace ksink::testkit
