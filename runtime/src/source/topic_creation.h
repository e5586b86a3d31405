// TopicCreation: the topics a source connector creates as it first writes to them (Kafka Connect's
// KIP-158), with Connect's keys and rules. In use when the worker's topic.creation.enable is true
// (the default) and the connector has a topic.creation.* key.
// - topic.creation.groups: groups besides `default`, in the order they are tried.
// - topic.creation.default.replication.factor and .partitions: required; -1 is the broker's
//   default.
// - topic.creation.<group>.include and .exclude: Java regular expressions a topic must match whole
//   (exclusions win); `default` takes every topic.
// - topic.creation.<group>.replication.factor and .partitions: the group's own, else `default`'s.
// - topic.creation.<group>.<any other key>: a topic config (cleanup.policy, retention.ms, ...) of
//   that group's topics only.
// A topic takes the first listed group that matches it, else `default`. Not thread-safe.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ksink/config_def.h"
#include "ksink/detail/java_regex.h"

namespace ksink {

struct TopicCreationGroup {
  std::string name;
  std::vector<detail::JavaRegex> include;
  std::vector<detail::JavaRegex> exclude;
  int replication_factor = -1;  // -1: the broker's default
  int partitions = -1;          // -1: the broker's default
  std::map<std::string, std::string> configs;

  // Connect's TopicCreationGroup.matches: no exclusion matches the whole topic, an inclusion does.
  bool matches(const std::string& topic) const;
};

class TopicCreation {
 public:
  // From a connector's settings (worker keys included): nullopt when topics are not created —
  // topic.creation.enable=false, or no topic.creation.* key besides it. Every bad key is added to
  // `problems` with the reason.
  static std::optional<TopicCreation> parse(const std::map<std::string, std::string>& values,
                                            std::vector<ConfigProblem>& problems);

  // The group a new topic is created with.
  const TopicCreationGroup& groupFor(const std::string& topic) const;
  // Whether the topic is still to be looked at (the task has not seen it exist or made it).
  bool required(const std::string& topic) const { return !known_.contains(topic); }
  void known(const std::string& topic) { known_.insert(topic); }

  const TopicCreationGroup& defaultGroup() const { return default_; }
  const std::vector<TopicCreationGroup>& groups() const { return groups_; }

 private:
  TopicCreationGroup default_;
  std::vector<TopicCreationGroup> groups_;  // topic.creation.groups, in order
  std::set<std::string, std::less<>> known_;
};

}  // namespace ksink
