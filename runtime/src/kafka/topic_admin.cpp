#include "topic_admin.h"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>
#include <string_view>

#include "rdkafka_handles.h"
#include "rdkafka_timeout.h"

namespace ksink {
namespace {

// One admin request about `topic`: `issue(options, queue)` sends it; returns the answer's event,
// throwing when none came within `timeout` (`what` names the request).
template <typename Issue>
EventHandle adminRequest(rd_kafka_t* rk, rd_kafka_admin_op_t op, const std::string& topic,
                         std::string_view what, std::chrono::milliseconds timeout, Issue&& issue) {
  QueueHandle queue(rd_kafka_queue_new(rk));
  std::unique_ptr<rd_kafka_AdminOptions_t, decltype(&rd_kafka_AdminOptions_destroy)> options(
      rd_kafka_AdminOptions_new(rk, op), &rd_kafka_AdminOptions_destroy);
  char err[512];
  rd_kafka_AdminOptions_set_request_timeout(options.get(), rdkafkaTimeoutMs(timeout), err,
                                            sizeof err);
  issue(options.get(), queue.get());
  EventHandle event(rd_kafka_queue_poll(queue.get(), rdkafkaTimeoutMs(timeout) + 5000));
  if (!event) throw std::runtime_error(fmt::format("topic {}: no answer to {}", topic, what));
  return event;
}

// The error code of `topic`'s result in a CreateTopics or CreatePartitions answer that
// `results(event, &n)` lists: `tolerated` (another process did it first) or NO_ERROR; the
// request's own error and any other code are thrown.
template <typename Results>
rd_kafka_resp_err_t topicResult(const EventHandle& event, const std::string& topic,
                                rd_kafka_resp_err_t tolerated, Results&& results) {
  if (rd_kafka_event_error(event.get()))
    throw std::runtime_error(
        fmt::format("topic {}: {}", topic, rd_kafka_event_error_string(event.get())));
  size_t n = 0;
  const rd_kafka_topic_result_t** topics = results(event.get(), &n);
  for (size_t i = 0; i < n; ++i) {
    const auto code = rd_kafka_topic_result_error(topics[i]);
    if (code == tolerated) return code;
    if (code != RD_KAFKA_RESP_ERR_NO_ERROR)
      throw std::runtime_error(
          fmt::format("topic {}: {}", topic, rd_kafka_topic_result_error_string(topics[i])));
  }
  return RD_KAFKA_RESP_ERR_NO_ERROR;
}

}  // namespace

bool ensureTopic(rd_kafka_t* rk, const std::string& topic, int partitions, int replication_factor,
                 const std::map<std::string, std::string>& configs,
                 std::chrono::milliseconds timeout) {
  // Listing every topic never auto-creates one; ask CreateTopics only when the topic is missing.
  const rd_kafka_metadata_t* md = nullptr;
  if (!rd_kafka_metadata(rk, 1, nullptr, &md, rdkafkaTimeoutMs(timeout))) {
    bool exists = false;
    for (int i = 0; i < md->topic_cnt && !exists; ++i)
      exists = topic == md->topics[i].topic && !md->topics[i].err;
    rd_kafka_metadata_destroy(md);
    if (exists) return false;
  }
  char err[512];
  rd_kafka_NewTopic_t* nt =
      rd_kafka_NewTopic_new(topic.c_str(), partitions, replication_factor, err, sizeof err);
  if (!nt) throw std::runtime_error(fmt::format("topic {}: {}", topic, err));
  for (const auto& [name, value] : configs)
    rd_kafka_NewTopic_set_config(nt, name.c_str(), value.c_str());
  std::unique_ptr<rd_kafka_NewTopic_t, decltype(&rd_kafka_NewTopic_destroy)> owned(
      nt, &rd_kafka_NewTopic_destroy);
  const EventHandle event = adminRequest(
      rk, RD_KAFKA_ADMIN_OP_CREATETOPICS, topic, "CreateTopics", timeout,
      [&](auto* options, auto* queue) { rd_kafka_CreateTopics(rk, &nt, 1, options, queue); });
  return topicResult(event, topic, RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS,
                     [](rd_kafka_event_t* e, size_t* n) {
                       return rd_kafka_CreateTopics_result_topics(
                           rd_kafka_event_CreateTopics_result(e), n);
                     }) == RD_KAFKA_RESP_ERR_NO_ERROR;
}

int ensurePartitions(rd_kafka_t* rk, const std::string& topic, int at_least,
                     std::chrono::milliseconds timeout) {
  int count = 0;
  const auto until = std::chrono::steady_clock::now() + timeout;
  // A topic just created may take a moment to show in the metadata.
  while (count == 0) {
    rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
    const rd_kafka_metadata_t* md = nullptr;
    if (!rd_kafka_metadata(rk, 0, rkt, &md, rdkafkaTimeoutMs(timeout))) {
      if (md->topic_cnt == 1 && !md->topics[0].err) count = md->topics[0].partition_cnt;
      rd_kafka_metadata_destroy(md);
    }
    rd_kafka_topic_destroy(rkt);
    if (count == 0 && std::chrono::steady_clock::now() >= until)
      throw std::runtime_error(fmt::format("topic {}: no metadata", topic));
  }
  if (count >= at_least) return count;
  char err[512];
  rd_kafka_NewPartitions_t* np =
      rd_kafka_NewPartitions_new(topic.c_str(), static_cast<size_t>(at_least), err, sizeof err);
  if (!np) throw std::runtime_error(fmt::format("topic {}: {}", topic, err));
  std::unique_ptr<rd_kafka_NewPartitions_t, decltype(&rd_kafka_NewPartitions_destroy)> owned(
      np, &rd_kafka_NewPartitions_destroy);
  const EventHandle event = adminRequest(
      rk, RD_KAFKA_ADMIN_OP_CREATEPARTITIONS, topic, "CreatePartitions", timeout,
      [&](auto* options, auto* queue) { rd_kafka_CreatePartitions(rk, &np, 1, options, queue); });
  // Another process grew it meanwhile: INVALID_PARTITIONS (it has that many already).
  topicResult(event, topic, RD_KAFKA_RESP_ERR_INVALID_PARTITIONS,
              [](rd_kafka_event_t* e, size_t* n) {
                return rd_kafka_CreatePartitions_result_topics(
                    rd_kafka_event_CreatePartitions_result(e), n);
              });
  return at_least;
}

std::optional<std::string> topicConfig(rd_kafka_t* rk, const std::string& topic,
                                       const std::string& name, std::chrono::milliseconds timeout) {
  // A topic's configs come from the controller: a cluster that names none of its brokers so
  // (librdkafka's embedded mock) would keep the request waiting out its timeout.
  const int32_t controller = rd_kafka_controllerid(rk, rdkafkaTimeoutMs(timeout));
  const rd_kafka_metadata_t* md = nullptr;
  bool reachable = false;
  if (controller >= 0 && !rd_kafka_metadata(rk, 0, nullptr, &md, rdkafkaTimeoutMs(timeout))) {
    for (int i = 0; i < md->broker_cnt && !reachable; ++i)
      reachable = md->brokers[i].id == controller;
    rd_kafka_metadata_destroy(md);
  }
  if (!reachable) return std::nullopt;
  rd_kafka_ConfigResource_t* resource =
      rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic.c_str());
  std::unique_ptr<rd_kafka_ConfigResource_t, decltype(&rd_kafka_ConfigResource_destroy)> owned(
      resource, &rd_kafka_ConfigResource_destroy);
  const EventHandle event =
      adminRequest(rk, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, topic, "DescribeConfigs", timeout,
                   [&](auto* options, auto* queue) {
                     rd_kafka_DescribeConfigs(rk, &resource, 1, options, queue);
                   });
  if (rd_kafka_event_error(event.get())) return std::nullopt;
  size_t n = 0;
  const auto** resources = rd_kafka_DescribeConfigs_result_resources(
      rd_kafka_event_DescribeConfigs_result(event.get()), &n);
  for (size_t i = 0; i < n; ++i) {
    if (rd_kafka_ConfigResource_error(resources[i])) return std::nullopt;
    size_t count = 0;
    const auto** entries = rd_kafka_ConfigResource_configs(resources[i], &count);
    for (size_t j = 0; j < count; ++j)
      if (name == rd_kafka_ConfigEntry_name(entries[j]) && rd_kafka_ConfigEntry_value(entries[j]))
        return std::string(rd_kafka_ConfigEntry_value(entries[j]));
  }
  return std::nullopt;
}

std::optional<std::string> clusterId(const std::map<std::string, std::string>& properties,
                                     std::chrono::milliseconds timeout) {
  auto rk = makeClient(RD_KAFKA_PRODUCER, properties, "cluster id client");
  char* id = rd_kafka_clusterid(rk.get(), static_cast<int>(timeout.count()));
  if (!id) return std::nullopt;
  std::string out(id);
  rd_kafka_mem_free(rk.get(), id);
  return out;
}

}  // namespace ksink
