#include "shared_tasks.h"

#include <fmt/format.h>
#include <librdkafka/rdkafka.h>

#include "ksink/detail/config_parse.h"
#include "rdkafka_handles.h"

namespace ksink {

bool tasksShared(const Config& config, bool sink) {
  // A source's group.id set in the worker's file or the connector's: a merged view's declared
  // default ("connect-cluster") does not make a standalone source's tasks shared.
  if (!sink) return config.has("group.id");
  // A sink's in a cluster (config.storage.topic set), in the group group.id names or its default.
  const auto topic = config.get("config.storage.topic");
  return topic && !detail::trim(*topic).empty();
}

std::string taskGroupName(std::string_view group_id, std::string_view connector) {
  return fmt::format("{}-{}-tasks", group_id, connector);
}

std::map<std::string, std::string> membershipProperties(
    const Config& config, const std::string& task_group, const std::string& connector,
    const std::map<std::string, std::string>& client_properties,
    std::vector<ConfigProblem>& problems) {
  auto out = client_properties;
  out["group.id"] = task_group;
  out["partition.assignment.strategy"] = "cooperative-sticky";
  out["enable.auto.commit"] = "false";
  out["client.id"] = "ksink-tasks-" + connector;
  for (const auto& [key, fallback] :
       std::map<std::string, std::string>{{"session.timeout.ms", "10000"},
                                          {"heartbeat.interval.ms", "3000"},
                                          {"group.instance.id", ""}}) {
    const auto given = config.get("consumer." + key);
    if (given && detail::trim(*given).empty())
      problems.push_back({"consumer." + key, "must not be empty"});
    else if (given || !fallback.empty())
      out[key] = given ? std::string(detail::trim(*given)) : fallback;
  }
  ConfHandle scratch(rd_kafka_conf_new());
  char errstr[512];
  for (const auto& [key, v] : out)
    if (rd_kafka_conf_set(scratch.get(), key.c_str(), v.c_str(), errstr, sizeof errstr) !=
        RD_KAFKA_CONF_OK)
      problems.push_back({"consumer." + key, errstr});
  return out;
}

SharedTasks sinkSharedTasks(const Config& config) {
  SharedTasks out;
  out.worker = WorkerConfig::parse(config);
  out.kind = "sink connector";
  out.splits_overlap = false;
  // group.id set, or the worker's default when the view carries no definitions.
  out.task_group = taskGroupName(WorkerConfig::configDef().valueOf(config.values(), "group.id"),
                                 out.worker.name);
  out.client_properties = WorkerConfig::clientProperties(config);
  out.replication_factor = static_cast<int>(
      detail::parseLong(config.get("offset.storage.replication.factor").value_or("3")).value_or(3));
  std::vector<ConfigProblem> problems;
  out.membership_properties = membershipProperties(config, out.task_group, out.worker.name,
                                                   out.client_properties, problems);
  if (!problems.empty()) throw ConfigException(std::move(problems));
  return out;
}

}  // namespace ksink
