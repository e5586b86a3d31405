// ensureTopic: creates a topic unless it exists — what the dead-letter queue and a source
// connector's offsets topic need of the Admin API; ensurePartitions: grows a topic's partitions;
// topicConfig: one of a topic's configs as the broker applies it; clusterId: the cluster's id.
#pragma once

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <map>
#include <optional>
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

// The value the broker applies for the topic's config `name` (set on the topic, or the broker's
// default); nullopt when the broker does not say (no DescribeConfigs permission, the embedded
// mock cluster). Throws std::runtime_error when the broker cannot be asked in time.
std::optional<std::string> topicConfig(
    rd_kafka_t* rk, const std::string& topic, const std::string& name,
    std::chrono::milliseconds timeout = std::chrono::seconds(15));

// The id of the cluster the client `properties` reach (Connect's kafka_cluster_id); nullopt when
// no broker answers within `timeout`.
std::optional<std::string> clusterId(const std::map<std::string, std::string>& properties,
                                     std::chrono::milliseconds timeout);

}  // namespace ksink
