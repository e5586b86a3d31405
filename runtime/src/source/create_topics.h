// topicsOf: the topics a batch of a source task's records goes to, each once (the task's active
// topics are told them, and topic creation looks at them). createTopicsFor: those the task writes
// to for the first time and that TopicCreation says to create (KIP-158), created before any record
// of the batch is sent. A topic that cannot be made throws (the task fails, as in Connect). Blocks
// while the broker answers, checking `stopping` between topics.
#pragma once

#include <atomic>
#include <string_view>
#include <vector>

#include "source_task_driver.h"
#include "topic_creation.h"

struct rd_kafka_s;

namespace ksink {

// Views of the records' topic names: valid while `records` is.
std::vector<std::string_view> topicsOf(const std::vector<detail::PolledRecord>& records);

void createTopicsFor(const std::vector<std::string_view>& topics, TopicCreation& creation,
                     rd_kafka_s* client, const std::atomic<bool>& stopping, std::string_view task);

}  // namespace ksink
