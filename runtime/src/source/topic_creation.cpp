#include "topic_creation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "ksink/detail/config_parse.h"

namespace ksink {
namespace {

constexpr std::string_view kPrefix = "topic.creation.";
constexpr std::string_view kEnable = "topic.creation.enable";
constexpr std::string_view kGroups = "topic.creation.groups";

// -1 (the broker's default) or a positive number that fits the protocol's field.
std::optional<int> countOrBrokerDefault(const std::map<std::string, std::string>& values,
                                        const std::string& key, int64_t max,
                                        std::vector<ConfigProblem>& problems) {
  const auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  const auto n = detail::parseLong(detail::trim(it->second));
  if (!n || (*n != -1 && (*n < 1 || *n > max))) {
    problems.push_back({key, fmt::format("must be -1 (the broker's default) or a number from 1 to "
                                         "{}, not '{}'",
                                         max, it->second)});
    return std::nullopt;
  }
  return static_cast<int>(*n);
}

std::vector<detail::JavaRegex> patterns(const std::map<std::string, std::string>& values,
                                        const std::string& key,
                                        std::vector<ConfigProblem>& problems) {
  std::vector<detail::JavaRegex> out;
  const auto it = values.find(key);
  if (it == values.end()) return out;
  for (const auto& pattern : detail::parseList(it->second)) {
    std::string error;
    if (auto regex = detail::JavaRegex::compile(pattern, &error))
      out.push_back(std::move(*regex));
    else
      problems.push_back(
          {key, fmt::format("'{}' is not a usable regular expression: {}", pattern, error)});
  }
  return out;
}

// The groups topic.creation.groups lists, in order; a repeated name is a problem, `default` a
// warning (it always exists).
std::vector<std::string> listedGroups(const std::map<std::string, std::string>& values,
                                      std::vector<ConfigProblem>& problems) {
  std::vector<std::string> names;
  const auto it = values.find(std::string(kGroups));
  if (it == values.end()) return names;
  std::string_view list = it->second;  // split here: parseList would drop a repeated name
  while (!list.empty()) {
    const auto comma = list.find(',');
    const auto name = std::string(detail::trim(list.substr(0, comma)));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    if (name.empty()) continue;
    if (name == "default")
      spdlog::warn(
          "topic.creation.groups: the 'default' group always exists and need not be listed");
    else if (std::find(names.begin(), names.end(), name) != names.end())
      problems.push_back({std::string(kGroups), fmt::format("lists '{}' twice", name)});
    else
      names.push_back(name);
  }
  return names;
}

// Every key must belong to `default` or a listed group: a misspelt group would create nothing.
void requireKnownGroups(const std::vector<std::string>& keys, const std::vector<std::string>& names,
                        std::vector<ConfigProblem>& problems) {
  const auto in_group = [&](const std::string& key, std::string_view group) {
    const auto prefix = fmt::format("{}{}.", kPrefix, group);
    return key.size() > prefix.size() && key.starts_with(prefix);
  };
  for (const auto& key : keys) {
    if (key == kGroups || in_group(key, "default") ||
        std::any_of(names.begin(), names.end(), [&](const auto& n) { return in_group(key, n); }))
      continue;
    const auto rest = std::string_view(key).substr(kPrefix.size());
    problems.push_back(
        {key, fmt::format("not a setting of the default group or of a group listed in "
                          "topic.creation.groups (here: '{}'): expected "
                          "topic.creation.<group>.<setting>",
                          rest.substr(0, rest.find('.')))});
  }
}

// The group `name`'s settings; `defaults`: the default group's, null when reading that one (whose
// replication factor and partitions are required, and which takes every topic).
TopicCreationGroup readGroup(const std::map<std::string, std::string>& values,
                             const std::string& name, const TopicCreationGroup* defaults,
                             std::vector<ConfigProblem>& problems) {
  TopicCreationGroup group;
  group.name = name;
  const std::string prefix = fmt::format("{}{}.", kPrefix, name);
  const auto rf = countOrBrokerDefault(values, prefix + "replication.factor", 32767, problems);
  const auto partitions = countOrBrokerDefault(values, prefix + "partitions", 2147483647, problems);
  if (defaults) {
    group.replication_factor = rf.value_or(defaults->replication_factor);
    group.partitions = partitions.value_or(defaults->partitions);
    group.include = patterns(values, prefix + "include", problems);
    group.exclude = patterns(values, prefix + "exclude", problems);
  } else {
    for (const char* setting : {"replication.factor", "partitions"})
      if (!values.contains(prefix + setting))
        problems.push_back({prefix + setting,
                            "required when a source connector creates its topics (any "
                            "topic.creation.* key): -1 for the broker's default"});
    group.replication_factor = rf.value_or(-1);
    group.partitions = partitions.value_or(-1);
    group.include.push_back(*detail::JavaRegex::compile(".*", nullptr));
    for (const char* setting : {"include", "exclude"})
      if (values.contains(prefix + setting))
        spdlog::warn(
            "{}{} is not used: the default group takes every topic no other group "
            "takes (Kafka Connect's rule)",
            prefix, setting);
  }
  for (const auto& [key, value] : values) {
    if (!key.starts_with(prefix)) continue;
    const auto setting = key.substr(prefix.size());
    if (setting != "include" && setting != "exclude" && setting != "replication.factor" &&
        setting != "partitions")
      group.configs.emplace(setting, value);
  }
  return group;
}

}  // namespace

bool TopicCreationGroup::matches(const std::string& topic) const {
  const auto whole = [&](const detail::JavaRegex& r) { return r.matches(topic); };
  return std::none_of(exclude.begin(), exclude.end(), whole) &&
         std::any_of(include.begin(), include.end(), whole);
}

std::optional<TopicCreation> TopicCreation::parse(const std::map<std::string, std::string>& values,
                                                  std::vector<ConfigProblem>& problems) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : values)
    if (key.starts_with(kPrefix) && key != kEnable) keys.push_back(key);
  if (keys.empty()) return std::nullopt;
  if (const auto it = values.find(std::string(kEnable));
      it != values.end() && detail::parseBoolean(it->second) == false) {
    spdlog::warn(
        "topic.creation.enable=false: the connector's {} are not used (Kafka Connect's "
        "rule); its topics must exist",
        fmt::join(keys, ", "));
    return std::nullopt;
  }
  const auto names = listedGroups(values, problems);
  requireKnownGroups(keys, names, problems);
  TopicCreation out;
  out.default_ = readGroup(values, "default", nullptr, problems);
  for (const auto& name : names)
    out.groups_.push_back(readGroup(values, name, &out.default_, problems));
  return out;
}

const TopicCreationGroup& TopicCreation::groupFor(const std::string& topic) const {
  for (const auto& group : groups_)
    if (group.matches(topic)) return group;
  return default_;
}

}  // namespace ksink
