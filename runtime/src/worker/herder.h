// Herder: the connectors of one `ksink run` process, each run by a Worker on a thread of its own,
// managed one at a time (Kafka Connect's StandaloneHerder): each has a target state — RUNNING,
// PAUSED or STOPPED — that pause(), resume() and stop() change, and restart() brings back a
// connector that failed or tasks of it. What the REST API serves (rest_api.h) and `ksink run`
// waits on.
//
// A connector whose Worker::run() throws is FAILED, with the error as its trace, and the others
// run on — unless exit.on.task.failure=true, where the failure stops every connector and wait()
// returns kExitFailed (the process exits for a supervisor to restart it whole, as before the REST
// API). Under false (ksink run's default) a failed task stays FAILED in its connector's status
// while the others run, and restarting it brings it back.
//
// Thread-safety: every method from any thread. An operation on one connector (a restart, a stop)
// waits for that connector's previous one, never for another connector's.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "connector_file.h"
#include "ksink/connector_status.h"
#include "ksink/worker.h"

namespace ksink {

// No connector (or task) of that name (REST: 404).
struct NotFound : std::out_of_range {
  using std::out_of_range::out_of_range;
};
// The request cannot be served in the connector's state (REST: 409).
struct ConnectorConflict : std::logic_error {
  using std::logic_error::logic_error;
};

class Herder {
 public:
  enum class Target { kRunning, kPaused, kStopped };

  // What GET /connectors/{c} shows.
  struct Info {
    std::string name;
    std::string type;                           // sink, source
    std::map<std::string, std::string> config;  // as submitted: references not resolved
    int tasks = 0;                              // the tasks it runs (none while stopped)
  };
  // What GET /connectors/{c}/status shows: the connector's state (UNASSIGNED before it starts,
  // RUNNING, PAUSED, STOPPED, FAILED with `trace`) and its tasks' (none while stopped).
  struct State {
    std::string name;
    std::string type;
    std::string state;
    std::string trace;
    std::vector<TaskStatus> tasks;
  };

  // `exit_on_failure`: a connector's failure stops every connector and ends wait().
  explicit Herder(bool exit_on_failure);
  ~Herder();
  Herder(const Herder&) = delete;
  Herder& operator=(const Herder&) = delete;

  // Before start(): a connector read from a file, with its properties as the file has them.
  void add(ConnectorFile connector, std::map<std::string, std::string> submitted);
  // Starts every connector; started() is true from then on.
  void start();
  bool started() const;
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

  // These throw NotFound, and ConnectorConflict where the state does not allow them.
  void pause(const std::string& name);
  void resume(const std::string& name);
  // Stops the connector's tasks (their final commits) and keeps it STOPPED until resumed.
  void stop(const std::string& name);
  // Connect's POST …/restart: a FAILED connector is started again; with `include_tasks`, its tasks
  // are restarted too (only the FAILED ones with `only_failed`).
  void restart(const std::string& name, bool include_tasks, bool only_failed);
  // Throws NotFound for a task the connector does not run.
  void restartTask(const std::string& name, int task);

 private:
  struct Connector;

  Connector& find(const std::string& name) const;
  // Makes the connector's Worker and starts its thread (paused when its target is).
  void launch(Connector& c);
  // Stops the connector's Worker and waits for its thread: false when run() threw meanwhile.
  bool halt(Connector& c);
  void ended(Connector& c, const std::shared_ptr<Worker>& worker, std::exception_ptr failure);
  void restartTask(Connector& c, const std::shared_ptr<Worker>& worker, int task);

  const bool exit_on_failure_;
  mutable std::mutex mutex_;  // guards the connectors' run state and what is below
  std::condition_variable changed_;
  std::map<std::string, std::unique_ptr<Connector>> connectors_;
  bool started_ = false;
  bool stop_requested_ = false;
  bool failed_ = false;  // a connector failed (exiting on failure) or failed to stop
};

}  // namespace ksink
