// Herder in a cluster with a status topic (herder.h): the statuses this process publishes, and
// the tasks of a connector whose processes share them, wherever they run.
#include <algorithm>
#include <optional>

#include "herder.h"
#include "herder_connector.h"
#include "shared_tasks.h"
#include "status_topic.h"

namespace ksink {

void Herder::addClusterTasks(const Connector& c, State& out) const {
  // The processes share tasks.max tasks (TaskGroup): a source's with a group.id, a sink's in a
  // cluster; otherwise each runs its own.
  if (!status_topic_ || !tasksShared(c.file.config, c.file.sink != nullptr)) return;
  const int count = static_cast<int>(c.file.config.getInt("tasks.max"));
  for (int id = 0; id < count; ++id) {
    if (std::any_of(out.tasks.begin(), out.tasks.end(),
                    [id](const TaskStatus& t) { return t.id == id; }))
      continue;
    TaskStatus task;
    task.id = id;
    task.state = "UNASSIGNED";
    const auto record = status_topic_->task(c.name, id);
    if (record) {
      task.state = *record->state;
      task.last_error = record->trace;
    }
    out.elsewhere[id] = record ? record->worker_id : "";
    out.tasks.push_back(std::move(task));
  }
  std::sort(out.tasks.begin(), out.tasks.end(),
            [](const TaskStatus& a, const TaskStatus& b) { return a.id < b.id; });
}

std::vector<StatusRecord> Herder::statusRecords() const {
  std::vector<StatusRecord> out;
  for (const auto& name : names()) {
    State state;
    try {
      state = this->state(name);
    } catch (const NotFound&) {
      continue;  // deleted meanwhile
    }
    out.push_back({name, std::nullopt, state.state, state.trace, "", 0});
    for (const auto& task : state.tasks) {
      if (state.elsewhere.contains(task.id)) continue;
      out.push_back({name, task.id, connectState(task),
                     task.state == "FAILED" ? task.last_error : std::string(), "", 0});
    }
  }
  return out;
}

}  // namespace ksink
