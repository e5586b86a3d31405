// Worker: runs one connector's `tasks.max` tasks, each on its own thread. A sink connector's
// SinkTasks each get their own librdkafka consumer in the consumer group `connect-<name>`; a
// source connector's tasks (ksink/source_task.h, run through the data model's adapter: see
// ksink/source_connector.h) each get their own producer, and commit their source offsets to the
// connector's offset store.
//
// run() blocks until every task has ended. If a task fails, the other tasks are stopped gracefully
// and run() rethrows the first task's error — unless exit.on.task.failure=false (Kafka Connect's
// way, and `ksink run`'s default): then the failed task stays FAILED in status(), the others run
// on, restartTask() brings it back, and run() returns once stop() was called. stop() may be called
// from any thread (and a signal handler's helper thread), any number of times: each task finishes
// its current put(), makes a final preCommit + bounded commit, close()s and stop()s; the whole stop
// is bounded by task.shutdown.graceful.timeout.ms. A task still running past that bound is
// abandoned, and run() throws saying so (a stop that could not finish is not a graceful one).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "ksink/config.h"
#include "ksink/connector_status.h"
#include "ksink/exactly_once_support.h"
#include "ksink/sink_task.h"
#include "ksink/source_task.h"

namespace ksink {

class Worker {
 public:
  // Validates the configuration against the worker's declared keys (and the definitions the Config
  // was built with); throws ConfigException naming every bad key before anything connects.
  Worker(Config config, TaskFactory factory);
  // A source connector's tasks, with what it declares about exactly-once delivery (`config`'s
  // definitions must include sourceConnectorKeys(): ksink::makeSourceWorker adds them).
  Worker(Config config, SourceTaskFactory factory, const SourceCapabilities& capabilities = {});
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void run();
  void stop();
  // Connect's task restart (POST /connectors/{c}/tasks/{t}/restart): stops task `task` as stop()
  // stops every task (its final commit, close(), stop(), bounded by
  // task.shutdown.graceful.timeout.ms) and starts a new one in its place, made by the factory,
  // while the others keep running; returns once the new one was started. Throws
  // std::out_of_range for a task the connector does not run, std::logic_error while the
  // connector is not running (before run() started its tasks, once stopping or once every task
  // ended) and for a task being restarted already or abandoned; a task that ended is replaced.
  // What the factory throws fails the connector as a task's failure does, and is rethrown here.
  // Any thread.
  void restartTask(int task);
  // Connect's connector pause and resume (PUT /connectors/{c}/pause, /resume): a paused sink task
  // pauses every partition it holds or is assigned and goes on committing what it delivered and
  // serving rebalances (put() gets no new records); a paused source task does not call poll() and
  // goes on committing what Kafka acknowledged. /status shows its running tasks PAUSED. Holds for
  // the tasks started later (a restart) until resume(). Any thread, any time, idempotent.
  void pause();
  void resume();
  // What every task is doing now: state, per-partition offsets and lag, counters. Any thread.
  ConnectorStatus status() const;
  // The topics its tasks used since it was made (Connect's active topics: a sink's topics it
  // consumed records of, a source's it produced to), each with when it was last. Any thread.
  std::map<std::string, std::chrono::steady_clock::time_point, std::less<>> activeTopics() const;

  // The worker's declared configuration keys (Connect's worker + sink connector keys).
  static const ConfigDef& configDef();
  // The same for a source connector (Connect's worker + source connector keys).
  static const ConfigDef& sourceConfigDef();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ksink
