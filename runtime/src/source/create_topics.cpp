#include "create_topics.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "topic_admin.h"

namespace ksink {

std::vector<std::string_view> topicsOf(const std::vector<detail::PolledRecord>& records) {
  std::vector<std::string_view> out;
  std::string_view previous;  // most records go where the one before went
  for (const auto& polled : records) {
    if (!polled.record || polled.record->topic == previous) continue;
    previous = polled.record->topic;
    if (std::find(out.begin(), out.end(), previous) == out.end()) out.push_back(previous);
  }
  return out;
}

void createTopicsFor(const std::vector<std::string_view>& topics, TopicCreation& creation,
                     rd_kafka_s* client, const std::atomic<bool>& stopping, std::string_view task) {
  for (const auto name : topics) {
    if (stopping) return;  // nothing more of the batch is sent either
    const std::string topic(name);
    if (!creation.required(topic)) continue;
    const auto& group = creation.groupFor(topic);
    bool created = false;
    try {
      created =
          ensureTopic(client, topic, group.partitions, group.replication_factor, group.configs);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format(
          "Task failed to create new topic {} (topic.creation group '{}': {} partitions, "
          "replication factor {}, configs {}): {}. Ensure that the task is authorized to create "
          "topics or that the topic exists, and restart the task",
          topic, group.name, group.partitions, group.replication_factor, group.configs, e.what()));
    }
    creation.known(topic);
    if (created)
      spdlog::info(
          "source task {}: created topic {} with topic.creation group '{}' ({} "
          "partitions, replication factor {}, configs {}; -1: the broker's default)",
          task, topic, group.name, group.partitions, group.replication_factor, group.configs);
  }
}

}  // namespace ksink
