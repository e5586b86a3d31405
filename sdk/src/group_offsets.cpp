#include "group_offsets.h"

#include <regex>
#include <stdexcept>

#include <fmt/format.h>

#include "rdkafka_handles.h"

namespace ksink {
namespace {

struct KafkaDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
struct MetadataDeleter {
  void operator()(const rd_kafka_metadata_t* md) const { rd_kafka_metadata_destroy(md); }
};

}  // namespace

std::vector<GroupOffsetRow> readGroupOffsets(const WorkerConfig& settings, int timeout_ms) {
  ConfHandle conf(rd_kafka_conf_new());
  char errstr[512];
  for (const auto& [key, value] : settings.consumer_properties)
    rd_kafka_conf_set(conf.get(), key.c_str(), value.c_str(), errstr, sizeof errstr);
  rd_kafka_conf_set(conf.get(), "log_level", "3", errstr, sizeof errstr);
  std::unique_ptr<rd_kafka_t, KafkaDeleter> rk(
      rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), errstr, sizeof errstr));
  if (!rk) throw std::runtime_error(errstr);
  conf.release();

  const rd_kafka_metadata_t* raw = nullptr;
  if (auto err = rd_kafka_metadata(rk.get(), 1, nullptr, &raw, timeout_ms))
    throw std::runtime_error(fmt::format("cannot read metadata: {}", rd_kafka_err2str(err)));
  std::unique_ptr<const rd_kafka_metadata_t, MetadataDeleter> md(raw);

  const std::regex pattern(settings.topics_regex.empty() ? "$^" : settings.topics_regex);
  std::vector<TopicPartition> partitions;
  for (int t = 0; t < md->topic_cnt; ++t) {
    const auto& topic = md->topics[t];
    const std::string name = topic.topic;
    const bool wanted =
        settings.topics_regex.empty()
            ? std::find(settings.topics.begin(), settings.topics.end(), name) != settings.topics.end()
            : std::regex_match(name, pattern);
    if (!wanted || topic.err) continue;
    for (int p = 0; p < topic.partition_cnt; ++p) partitions.push_back({name, topic.partitions[p].id});
  }
  std::sort(partitions.begin(), partitions.end());

  auto list = toPartitionList(partitions);
  if (auto err = rd_kafka_committed(rk.get(), list.get(), timeout_ms))
    throw std::runtime_error(fmt::format("cannot read committed offsets: {}", rd_kafka_err2str(err)));
  std::vector<GroupOffsetRow> rows;
  for (int i = 0; i < list->cnt; ++i) {
    const auto& e = list->elems[i];
    GroupOffsetRow row{{e.topic, e.partition}, std::nullopt, 0};
    if (e.offset >= 0) row.committed = e.offset;
    int64_t low = 0, high = 0;
    if (!rd_kafka_query_watermark_offsets(rk.get(), e.topic, e.partition, &low, &high, timeout_ms))
      row.end = high;
    rows.push_back(row);
  }
  return rows;
}

}  // namespace ksink
