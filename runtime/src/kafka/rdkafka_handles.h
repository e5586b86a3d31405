// One owner per librdkafka C handle: unique_ptr aliases with the matching destroy function.
#pragma once

#include <librdkafka/rdkafka.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/topic_partition.h"

namespace ksink {

struct ConfDeleter {
  void operator()(rd_kafka_conf_t* p) const { rd_kafka_conf_destroy(p); }
};
struct PartitionListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* p) const {
    rd_kafka_topic_partition_list_destroy(p);
  }
};
struct MessageDeleter {
  void operator()(rd_kafka_message_t* p) const { rd_kafka_message_destroy(p); }
};
struct QueueDeleter {
  void operator()(rd_kafka_queue_t* p) const { rd_kafka_queue_destroy(p); }
};
struct EventDeleter {
  void operator()(rd_kafka_event_t* p) const { rd_kafka_event_destroy(p); }
};
struct KafkaDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
struct ErrorDeleter {
  void operator()(rd_kafka_error_t* p) const { rd_kafka_error_destroy(p); }
};

using ConfHandle = std::unique_ptr<rd_kafka_conf_t, ConfDeleter>;
using PartitionList = std::unique_ptr<rd_kafka_topic_partition_list_t, PartitionListDeleter>;
using MessagePtr = std::unique_ptr<rd_kafka_message_t, MessageDeleter>;
using QueueHandle = std::unique_ptr<rd_kafka_queue_t, QueueDeleter>;
using EventHandle = std::unique_ptr<rd_kafka_event_t, EventDeleter>;
using ErrorHandle = std::unique_ptr<rd_kafka_error_t, ErrorDeleter>;
using KafkaHandle = std::unique_ptr<rd_kafka_t, KafkaDeleter>;

// A configuration holding `properties`; throws std::runtime_error naming the property librdkafka
// refuses, prefixed by `what` (the client it is for).
inline ConfHandle makeConf(const std::map<std::string, std::string>& properties,
                           std::string_view what) {
  ConfHandle conf(rd_kafka_conf_new());
  char err[512];
  for (const auto& [key, value] : properties)
    if (rd_kafka_conf_set(conf.get(), key.c_str(), value.c_str(), err, sizeof err) !=
        RD_KAFKA_CONF_OK)
      throw std::runtime_error(std::string(what) + " property " + key + ": " + err);
  return conf;
}

// A client of `type` with `properties`; throws std::runtime_error prefixed by `what`.
inline KafkaHandle makeClient(rd_kafka_type_t type,
                              const std::map<std::string, std::string>& properties,
                              std::string_view what) {
  auto conf = makeConf(properties, what);
  char err[512];
  KafkaHandle rk(rd_kafka_new(type, conf.get(), err, sizeof err));
  if (!rk) throw std::runtime_error(std::string(what) + ": " + err);
  conf.release();  // rd_kafka_new took it
  return rk;
}

inline PartitionList toPartitionList(const std::vector<TopicPartition>& partitions) {
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size())));
  for (const auto& tp : partitions)
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition);
  return list;
}

inline PartitionList toPartitionList(const OffsetMap& offsets) {
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size())));
  for (const auto& [tp, offset] : offsets)
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition)->offset = offset;
  return list;
}

inline std::vector<TopicPartition> toPartitions(const rd_kafka_topic_partition_list_t* list) {
  std::vector<TopicPartition> out;
  if (!list) return out;
  out.reserve(static_cast<size_t>(list->cnt));
  for (int i = 0; i < list->cnt; ++i)
    out.push_back({list->elems[i].topic, list->elems[i].partition});
  return out;
}

inline OffsetMap toOffsetMap(const rd_kafka_topic_partition_list_t* list) {
  OffsetMap out;
  if (!list) return out;
  for (int i = 0; i < list->cnt; ++i)
    out.emplace(TopicPartition{list->elems[i].topic, list->elems[i].partition},
                list->elems[i].offset);
  return out;
}

}  // namespace ksink
