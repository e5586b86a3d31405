#include "fetched_records.h"

#include <algorithm>

namespace ksink {

void WorkerBatch::add(const rd_kafka_message_t* m) {
  auto copy = [this](const void* data, size_t size) {
    return bytes.copy(std::string_view(static_cast<const char*>(data), size));
  };
  if (const std::string_view topic = rd_kafka_topic_name(m->rkt); topic != topic_)
    topic_ = bytes.copy(topic);
  rd_kafka_timestamp_type_t ts_type;
  const int64_t ts = rd_kafka_message_timestamp(m, &ts_type);
  std::optional<std::string_view> key, value;
  if (m->key) key = copy(m->key, m->key_len);
  if (m->payload) value = copy(m->payload, m->len);
  std::vector<Header> headers;
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(m, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR && hdrs) {
    const char* name;
    const void* val;
    size_t size;
    for (size_t i = 0; rd_kafka_header_get_all(hdrs, i, &name, &val, &size) == 0; ++i) {
      std::optional<std::string_view> hv;
      if (val) hv = copy(val, size);
      headers.push_back({bytes.copy(name), hv});
    }
  }
  records.emplace_back(topic_, m->partition, m->offset,
                       ts >= 0 ? std::optional<int64_t>(ts) : std::nullopt, key, value,
                       std::move(headers));
}

void WorkerBatch::clear() {
  records.clear();  // keeps the capacity for the next batch
  put_records.clear();
  connect_records.clear();
  converted_count = 0;
  bytes.clear();
  topic_ = {};
}

void WorkerBatch::dropPartitions(const std::set<TopicPartition>& partitions) {
  if (partitions.empty() || records.empty()) return;
  auto dropped = [&](const SinkRecord& r) { return partitions.contains(r.topicPartition()); };
  converted_count -= static_cast<size_t>(std::count_if(
      records.begin(), records.begin() + static_cast<ptrdiff_t>(converted_count), dropped));
  std::erase_if(records, dropped);
  // The converted ones, index for index (SinkRecordConversion links them again before put()).
  size_t kept = 0;
  for (size_t i = 0; i < put_records.size(); ++i) {
    if (dropped(put_records[i])) continue;
    if (kept != i) {
      put_records[kept] = std::move(put_records[i]);
      connect_records[kept] = std::move(connect_records[i]);
    }
    ++kept;
  }
  put_records.erase(put_records.begin() + static_cast<ptrdiff_t>(kept), put_records.end());
  connect_records.erase(connect_records.begin() + static_cast<ptrdiff_t>(kept),
                        connect_records.end());
}

void FetchedRecords::dropPartitions(const std::set<TopicPartition>& partitions) {
  if (partitions.empty()) return;
  batch_.dropPartitions(partitions);
  std::erase_if(parked_,
                [&](const MessagePtr& m) { return partitions.contains(partitionOf(m.get())); });
}

void FetchedRecords::release() {
  batch_ = WorkerBatch{};
  parked_.clear();
}

}  // namespace ksink
