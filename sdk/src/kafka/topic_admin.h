// ensureTopic: creates a topic unless it exists — what the dead-letter queue and a source
// connector's offsets topic need of the Admin API; ensurePartitions: grows a topic's partitions.
#pragma once

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <map>
#include <string>

namespace ksink {

// True when it created the topic, false when the topic was there. Throws std::runtime_error with
// the broker's reason when the topic is missing and cannot be created (the embedded mock cluster
// has no CreateTopics: create topics there up front). `replication_factor` -1: the broker's
// default. `configs`: topic configs (e.g. cleanup.policy=compact).
bool ensureTopic(rd_kafka_t* rk, const std::string& topic, int partitions, int replication_factor,
                 const std::map<std::string, std::string>& configs = {},
                 std::chrono::milliseconds timeout = std::chrono::seconds(15));

// The topic's partition count once it has at least `at_least` (CreatePartitions when it has
// fewer; a topic never shrinks, so it may have more). Throws std::runtime_error with the broker's
// reason when the topic is missing or cannot grow.
int ensurePartitions(rd_kafka_t* rk, const std::string& topic, int at_least,
                     std::chrono::milliseconds timeout = std::chrono::seconds(15));

}  // namespace ksink
