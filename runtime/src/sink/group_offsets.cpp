#include "group_offsets.h"

#include <fmt/format.h>

#include <regex>
#include <stdexcept>

#include "rdkafka_handles.h"

namespace ksink {
namespace {

struct MetadataDeleter {
  void operator()(const rd_kafka_metadata_t* md) const { rd_kafka_metadata_destroy(md); }
};

// A client with the connector's consumer settings (security included) that never joins the group.
KafkaHandle groupClient(const SinkConnectorConfig& settings) {
  ConfHandle conf(rd_kafka_conf_new());
  char errstr[512];
  for (const auto& [key, value] : settings.consumer_properties)
    rd_kafka_conf_set(conf.get(), key.c_str(), value.c_str(), errstr, sizeof errstr);
  rd_kafka_conf_set(conf.get(), "log_level", "3", errstr, sizeof errstr);
  KafkaHandle rk(rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), errstr, sizeof errstr));
  if (!rk) throw std::runtime_error(errstr);
  conf.release();
  return rk;
}

[[noreturn]] void stillHasMembers(const SinkConnectorConfig& settings, const char* what) {
  throw std::runtime_error(fmt::format(
      "cannot {} the offsets of group {}: it still has members. Stop every ksink process "
      "running this connector first (a killed one leaves the group after session.timeout.ms)",
      what, settings.group_id));
}

[[noreturn]] void groupError(const SinkConnectorConfig& settings, rd_kafka_resp_err_t err,
                             const char* what) {
  if (err == RD_KAFKA_RESP_ERR_NON_EMPTY_GROUP || err == RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID ||
      err == RD_KAFKA_RESP_ERR_GROUP_SUBSCRIBED_TO_TOPIC)
    stillHasMembers(settings, what);
  throw std::runtime_error(fmt::format("cannot {} the offsets of group {}: {}", what,
                                       settings.group_id, rd_kafka_err2str(err)));
}

// Waits for an admin result event; throws on a timeout or a request-level error.
EventHandle awaitAdmin(rd_kafka_queue_t* queue, int timeout_ms, const char* what) {
  EventHandle event(rd_kafka_queue_poll(queue, timeout_ms + 1000));
  if (!event) throw std::runtime_error(fmt::format("{}: no answer from the broker", what));
  if (rd_kafka_event_error(event.get()))
    throw std::runtime_error(fmt::format("{}: {}", what, rd_kafka_event_error_string(event.get())));
  return event;
}

}  // namespace

void requireNoGroupMembers(const SinkConnectorConfig& settings, int timeout_ms) {
  auto rk = groupClient(settings);
  QueueHandle queue(rd_kafka_queue_new(rk.get()));
  const char* group = settings.group_id.c_str();
  rd_kafka_DescribeConsumerGroups(rk.get(), &group, 1, nullptr, queue.get());
  auto event = awaitAdmin(queue.get(), timeout_ms, "describe group");
  size_t n = 0;
  const auto** groups = rd_kafka_DescribeConsumerGroups_result_groups(
      rd_kafka_event_DescribeConsumerGroups_result(event.get()), &n);
  for (size_t i = 0; i < n; ++i) {
    if (const rd_kafka_error_t* error = rd_kafka_ConsumerGroupDescription_error(groups[i])) {
      // A group that never committed anything may not exist: it has no members.
      if (rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND) continue;
      groupError(settings, rd_kafka_error_code(error), "change");
    }
    if (rd_kafka_ConsumerGroupDescription_member_count(groups[i]) > 0)
      stillHasMembers(settings, "change");
  }
}

void resetGroupOffsets(const SinkConnectorConfig& settings, int timeout_ms) {
  auto rk = groupClient(settings);
  QueueHandle queue(rd_kafka_queue_new(rk.get()));
  rd_kafka_DeleteGroup_t* group = rd_kafka_DeleteGroup_new(settings.group_id.c_str());
  rd_kafka_DeleteGroups(rk.get(), &group, 1, nullptr, queue.get());
  rd_kafka_DeleteGroup_destroy(group);
  auto event = awaitAdmin(queue.get(), timeout_ms, "reset");
  size_t n = 0;
  const auto** groups =
      rd_kafka_DeleteGroups_result_groups(rd_kafka_event_DeleteGroups_result(event.get()), &n);
  for (size_t i = 0; i < n; ++i) {
    const rd_kafka_error_t* error = rd_kafka_group_result_error(groups[i]);
    // A group that never committed anything does not exist: already reset.
    if (error && rd_kafka_error_code(error) != RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND)
      groupError(settings, rd_kafka_error_code(error), "reset");
  }
}

void alterGroupOffsets(const SinkConnectorConfig& settings, const OffsetMap& offsets,
                       int timeout_ms) {
  auto rk = groupClient(settings);
  QueueHandle queue(rd_kafka_queue_new(rk.get()));
  auto list = toPartitionList(offsets);
  rd_kafka_AlterConsumerGroupOffsets_t* alter =
      rd_kafka_AlterConsumerGroupOffsets_new(settings.group_id.c_str(), list.get());
  rd_kafka_AlterConsumerGroupOffsets(rk.get(), &alter, 1, nullptr, queue.get());
  rd_kafka_AlterConsumerGroupOffsets_destroy(alter);
  auto event = awaitAdmin(queue.get(), timeout_ms, "alter");
  size_t n = 0;
  const auto** groups = rd_kafka_AlterConsumerGroupOffsets_result_groups(
      rd_kafka_event_AlterConsumerGroupOffsets_result(event.get()), &n);
  for (size_t i = 0; i < n; ++i) {
    if (const rd_kafka_error_t* error = rd_kafka_group_result_error(groups[i]))
      groupError(settings, rd_kafka_error_code(error), "alter");
    const auto* parts = rd_kafka_group_result_partitions(groups[i]);
    for (int p = 0; parts && p < parts->cnt; ++p)
      if (parts->elems[p].err) groupError(settings, parts->elems[p].err, "alter");
  }
}

std::vector<GroupOffsetRow> readGroupOffsets(const SinkConnectorConfig& settings, int timeout_ms) {
  auto rk = groupClient(settings);

  const rd_kafka_metadata_t* raw = nullptr;
  if (auto err = rd_kafka_metadata(rk.get(), 1, nullptr, &raw, timeout_ms))
    throw std::runtime_error(fmt::format("cannot read metadata: {}", rd_kafka_err2str(err)));
  std::unique_ptr<const rd_kafka_metadata_t, MetadataDeleter> md(raw);

  const std::regex pattern(settings.topics_regex.empty() ? "$^" : settings.topics_regex);
  std::vector<TopicPartition> partitions;
  for (int t = 0; t < md->topic_cnt; ++t) {
    const auto& topic = md->topics[t];
    const std::string name = topic.topic;
    const bool wanted = settings.topics_regex.empty()
                            ? std::find(settings.topics.begin(), settings.topics.end(), name) !=
                                  settings.topics.end()
                            : std::regex_match(name, pattern);
    if (!wanted || topic.err) continue;
    for (int p = 0; p < topic.partition_cnt; ++p)
      partitions.push_back({name, topic.partitions[p].id});
  }
  std::sort(partitions.begin(), partitions.end());

  auto list = toPartitionList(partitions);
  if (auto err = rd_kafka_committed(rk.get(), list.get(), timeout_ms))
    throw std::runtime_error(
        fmt::format("cannot read committed offsets: {}", rd_kafka_err2str(err)));
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
