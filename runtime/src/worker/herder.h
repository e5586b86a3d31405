// Herder: the connectors of one `ksink run` process, each run by a Worker on a thread of its own,
// managed one at a time (Kafka Connect's StandaloneHerder): each has a target state — RUNNING,
// PAUSED or STOPPED — that pause(), resume() and stop() change; restart() brings back a connector
// that failed, or tasks of it; connectors are created, reconfigured and deleted while the others
// run. What the REST API serves (rest_api.h) and `ksink run` waits on.
//
// A connector whose Worker::run() throws is FAILED, with the error as its trace, and the others
// run on — unless exit.on.task.failure=true, where the failure stops every connector and wait()
// returns kExitFailed (the process exits for a supervisor to restart it whole, as before the REST
// API). Under false (ksink run's default) a failed task stays FAILED in its connector's status
// while the others run, and restarting it brings it back.
//
// With a state directory, what is created, changed, paused, stopped or deleted through the herder
// is kept there (one JSON file per connector, written whole and renamed into place), and restore()
// brings it back at the next start, over the connector files: a restart keeps what the REST API
// did, which Connect's standalone worker forgets.
//
// In a cluster (config.storage.topic), the connectors are those of Connect's config topic: the
// changes are written there and applied by every process reading it (herder_cluster.cpp), and a
// connector the topic holds that cannot run here is shown FAILED with why.
//
// Thread-safety: every method from any thread. An operation on one connector (a restart, a stop)
// waits for that connector's previous one, never for another connector's; creations, changes of
// configuration and deletions are made one at a time.
#pragma once

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "config_records.h"
#include "connector_file.h"
#include "connector_state_dir.h"
#include "ksink/connector_status.h"
#include "ksink/worker.h"
#include "status_records.h"

namespace ksink {

class ConfigTopic;
class StatusTopic;

// No connector (or task) of that name (REST: 404).
struct NotFound : std::out_of_range {
  using std::out_of_range::out_of_range;
};
// The request cannot be served in the connector's state, or the name is taken (REST: 409).
struct ConnectorConflict : std::logic_error {
  using std::logic_error::logic_error;
};

class Herder {
 public:
  enum class Target { kRunning, kPaused, kStopped };
  using Config = std::map<std::string, std::string>;
  // Reads and checks a connector's properties as submitted (throws ConfigException).
  using Loader = std::function<ConnectorFile(const Config& submitted)>;

  // What GET /connectors/{c} shows.
  struct Info {
    std::string name;
    std::string type;  // sink, source
    Config config;     // as submitted: references not resolved
    int tasks = 0;     // the tasks it runs (none while stopped)
  };
  // A task's state as Connect names it: one that ended without failing (STOPPED here) runs
  // nowhere, UNASSIGNED (Connect's task states: UNASSIGNED, RUNNING, PAUSED, FAILED, RESTARTING).
  static std::string connectState(const TaskStatus& task) {
    return task.state == "STOPPED" ? "UNASSIGNED" : task.state;
  }
  // What GET /connectors/{c}/status shows: the connector's state (UNASSIGNED before it starts,
  // RUNNING, PAUSED, STOPPED, FAILED with `trace`) and its tasks' (none while stopped).
  struct State {
    std::string name;
    std::string type;
    std::string state;
    std::string trace;
    std::vector<TaskStatus> tasks;
    // In a cluster, the tasks another process runs: their worker ids (the status topic's).
    std::map<int, std::string> elsewhere;
  };

  // `exit_on_failure`: a connector's failure stops every connector and ends wait(). `loader`:
  // for the connectors created or changed at run time. `state_dir`: where those changes are kept
  // (empty: nowhere).
  Herder(bool exit_on_failure, Loader loader, std::filesystem::path state_dir = {});
  ~Herder();
  Herder(const Herder&) = delete;
  Herder& operator=(const Herder&) = delete;

  // Before start(): a connector read from a file.
  void add(ConnectorFile connector);
  // Before start(), after the files' add(): the connectors kept in the state directory replace
  // those of the files (their configuration and target state), a connector deleted is dropped.
  // What cannot be read or is refused now is logged and left out (a file's connector then runs
  // as its file says).
  void restore();
  // Starts every connector; started() is true from then on.
  void start();
  bool started() const;
  // What Connect's GET /health asks of its herder: false when a change (a creation, a new
  // configuration, a deletion, the start or the stop) held the connectors for longer than
  // `timeout`, so the process answers and its herder would not.
  bool responsive(std::chrono::milliseconds timeout);
  // Started, and every connector's tasks have started (RUNNING, PAUSED, or FAILED at their
  // start): what `ksink run` waits for before telling systemd it is ready.
  bool connectorsStarted() const;
  // Stops every connector (any thread, any number of times): wait() then returns.
  void stopAll();
  // Until stopAll() — or, with exit_on_failure, a connector's failure — then stops every
  // connector: 0, or kExitFailed when a connector failed to stop (or, exiting on failure, failed).
  int wait();

  std::vector<std::string> names() const;
  // These throw NotFound for a name not run here.
  Info info(const std::string& name) const;
  State state(const std::string& name) const;
  // What /status and /metrics show: every connector's.
  std::vector<ConnectorStatus> statuses() const;
  // The connector as read from its file or request.
  ConnectorFile file(const std::string& name) const;
  // Runs `use` on the connector, which must be STOPPED (ConnectorConflict otherwise) and stays so
  // meanwhile: what changes its offsets.
  std::string whileStopped(const std::string& name,
                           const std::function<std::string(const ConnectorFile&)>& use);

  // A new connector (Connect's POST /connectors), started in `initial` state; its info as Connect
  // answers, before any task started. Throws ConnectorConflict when the name is taken,
  // ConfigException for a configuration refused.
  Info create(const std::string& name, Config config, Target initial);
  // Connect's PUT …/config: creates the connector, or replaces its configuration (its tasks
  // stopped and started again on the new one, its target state kept). True when created.
  bool putConfig(const std::string& name, Config config);
  // Connect's PATCH …/config: the keys set, those with no value removed.
  Info patchConfig(const std::string& name,
                   const std::map<std::string, std::optional<std::string>>& patch);
  // Stops the connector (its final commits) and forgets it, its active topics too.
  void remove(const std::string& name);

  // Connect's GET …/topics (KIP-558): the topics the connector used since it was created or they
  // were last reset, by name; as in Connect, a connector not run here has none.
  std::vector<std::string> activeTopics(const std::string& name) const;
  // Connect's PUT …/topics/reset.
  void resetActiveTopics(const std::string& name);

  // These throw NotFound, and ConnectorConflict where the state does not allow them.
  void pause(const std::string& name);
  void resume(const std::string& name);
  // Stops the connector's tasks (their final commits) and keeps it STOPPED until resumed.
  void stop(const std::string& name);
  // Connect's POST …/restart: a FAILED connector is started again; with `include_tasks`, its tasks
  // are restarted too (only the FAILED ones with `only_failed`).
  void restart(const std::string& name, bool include_tasks, bool only_failed);
  // Throws NotFound for a task the connector does not run. In a cluster, the task of this
  // process.
  void restartTask(const std::string& name, int task);

  // Cluster mode (Connect's distributed worker, config.storage.topic): the connectors are those of
  // `topic`. What create(), putConfig(), patchConfig(), remove(), pause(), resume(), stop() and
  // restart() change is written there, and applied through apply() by every process that reads it
  // — this one included, before the call returns. Before start().
  void useConfigTopic(ConfigTopic* topic) { config_topic_ = topic; }
  // A change read from the config topic, applied to the connectors run here.
  void apply(const ConfigRecord& record);
  // Cluster mode with a status topic: a connector whose processes share its tasks shows them all,
  // those of other processes as the topic holds them. Before start().
  void useStatusTopic(const StatusTopic* topic) { status_topic_ = topic; }
  // What this process publishes to the status topic: each connector's state and the tasks it runs
  // here (worker ids left empty).
  std::vector<StatusRecord> statusRecords() const;

 private:
  struct Connector;
  using ConnectorPtr = std::shared_ptr<Connector>;

  ConnectorPtr find(const std::string& name) const;
  struct Refused;
  // A connector of the config topic not run here.
  std::optional<Refused> refused(const std::string& name) const;
  // `config` with its name: `name`, which a name in the configuration must match.
  ConnectorPtr make(const std::string& name, Config config) const;
  // Makes the connector's Worker and starts its thread (paused when its target is).
  void launch(const ConnectorPtr& c);
  // Stops the connector's Worker and waits for its thread: false when run() threw meanwhile.
  bool halt(Connector& c);
  void ended(Connector& c, const std::shared_ptr<Worker>& worker, std::exception_ptr failure);
  void restartTask(Connector& c, const std::shared_ptr<Worker>& worker, int task);
  // pause() and resume(): the target state, applied to the running tasks, or the tasks started.
  void retarget(const std::string& name, Target target);
  // `fresh` in the place of `old` (none: a new connector), with old's target state.
  void replace(const ConnectorPtr& old, const ConnectorPtr& fresh);
  std::vector<ConnectorPtr> all() const;
  // The state directory's record of the connector: its configuration and target state.
  void keep(const Connector& c);
  // The changes made here, applied (standalone, or a record of the config topic applied).
  void removeHere(const std::string& name);
  void stopHere(Connector& c);
  void restartHere(const ConnectorPtr& found, bool include_tasks, bool only_failed);
  // The cluster's side of the public changes: written to the config topic, applied when read.
  Info createInCluster(const std::string& name, Config config, Target initial);
  void writeTarget(const std::string& name, Target target);
  // The connector's tasks across the cluster, when its processes share them: `out` holds those
  // run here; the others are added from the status topic (UNASSIGNED when it has none).
  void addClusterTasks(const Connector& c, State& out) const;
  // A change to the cluster before its config topic was read: ConnectorConflict (409, which
  // Connect's clients retry).
  void requireJoined() const;
  // A connector's configuration read from the config topic: created, or replaced.
  void applyConnector(const std::string& name, const Config& config);
  void applyTarget(const std::string& name, ConfigRecord::Target target);

  const bool exit_on_failure_;
  const Loader loader_;
  const ConnectorStateDir state_dir_;
  std::timed_mutex changes_;  // one creation, change of configuration or deletion at a time
  mutable std::mutex mutex_;  // guards the connectors' run state and what is below
  std::condition_variable changed_;
  std::map<std::string, ConnectorPtr> connectors_;
  bool started_ = false;
  bool stop_requested_ = false;
  bool failed_ = false;  // a connector failed (exiting on failure) or failed to stop
  ConfigTopic* config_topic_ = nullptr;        // cluster mode: where changes are written
  const StatusTopic* status_topic_ = nullptr;  // cluster mode: the other processes' statuses
  // Target states read before their connector's configuration (Connect writes them first).
  std::map<std::string, ConfigRecord::Target> pending_targets_;
  // Connectors of the config topic not run here (a class ksink does not serve, a configuration it
  // refuses): shown FAILED with why, until deleted or given a configuration that runs.
  struct Refused {
    Config config;
    std::string reason;
  };
  std::map<std::string, Refused> refused_;
};

}  // namespace ksink
