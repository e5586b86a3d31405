#include "rest_entities.h"

#include <fmt/format.h>

#include "json_text.h"

namespace ksink {

// Connect's ConnectorStateInfo.TaskState. A task that ended without failing (the connector
// stopping) is UNASSIGNED, as Connect shows a task that runs nowhere: its task states are
// UNASSIGNED, RUNNING, PAUSED, FAILED and RESTARTING, and clients such as kafbat UI take no other.
std::string taskJson(const Herder::State& of, const TaskStatus& task, std::string_view worker_id) {
  if (auto it = of.elsewhere.find(task.id); it != of.elsewhere.end() && !it->second.empty())
    worker_id = it->second;
  const std::string state = Herder::connectState(task);
  auto out = fmt::format(R"({{"id":{},"state":{},"worker_id":{},"version":{})", task.id,
                         jsonText(state), jsonText(worker_id), jsonText(KSINK_VERSION));
  if (!task.last_error.empty() && task.state == "FAILED")
    out += R"(,"trace":)" + jsonText(task.last_error);
  return out + '}';
}

// Connect's ConnectorStateInfo.
std::string stateJson(const Herder::State& state, std::string_view worker_id) {
  auto connector = fmt::format(R"({{"state":{},"worker_id":{},"version":{})", jsonText(state.state),
                               jsonText(worker_id), jsonText(KSINK_VERSION));
  if (!state.trace.empty()) connector += R"(,"trace":)" + jsonText(state.trace);
  std::string tasks;
  for (const auto& task : state.tasks)
    tasks += (tasks.empty() ? "" : ",") + taskJson(state, task, worker_id);
  return fmt::format(R"({{"name":{},"connector":{}}},"tasks":[{}],"type":{}}})",
                     jsonText(state.name), connector, tasks, jsonText(state.type));
}

// Connect's ConnectorInfo.
std::string infoJson(const Herder::Info& info) {
  std::string tasks;
  for (int t = 0; t < info.tasks; ++t)
    tasks += fmt::format(R"({}{{"connector":{},"task":{}}})", t ? "," : "", jsonText(info.name), t);
  return fmt::format(R"({{"name":{},"config":{},"tasks":[{}],"type":{}}})", jsonText(info.name),
                     jsonMap(info.config), tasks, jsonText(info.type));
}

}  // namespace ksink
