// TaskGroup: a source connector's tasks shared by the processes that run it, through Kafka's
// own group membership rather than a coordinator of ksink's: each process joins the consumer group
// `<group.id>-<connector>-tasks` on the topic of that name, whose partitions are the task ids
// (0 … tasks.max − 1; created, or grown, by the first process that needs it). The group's
// cooperative-sticky assignment spreads the partitions; a process runs the task of each partition
// it is given, and stops it, before giving the partition up, when a rebalance moves it (a process
// joined or left). A process that dies stops heartbeating: after consumer.session.timeout.ms
// (10 s by default, as Connect's workers) the group gives its tasks to the others — at once when
// it comes back under the same consumer.group.instance.id (static membership, KIP-345).
//
// A task is started only on a partition this member owns, and the member gives a partition up
// only once its task ended (cancelled past the stop's deadline, waited for up to the transaction
// timeout more; only a task whose own code never returns is left running, logged). A member cut
// off from the group (paused, partitioned away) does not know at once that its partitions moved:
// it learns at its next heartbeat, and cancels their tasks then. Under exactly-once that window
// is harmless — the new owner's producer fenced the old one, which can commit nothing more. At
// least once, the old copy may produce and commit what it polls until it learns (at most
// consumer.heartbeat.interval.ms after it resumes, plus the stop): duplicates, never a loss.
//
// The topic (compacted) records the tasks.max the group runs with. A process that starts with
// another one (a reconfiguration; processes not yet restarted still run the old split of the
// work) fences, under exactly-once, every transactional id of either before its tasks start, so
// a task of the old configuration can commit nothing more; with the same tasks.max it fences the
// ids past it that the topic has partitions for (a topic never shrinks). At least once, a
// changed tasks.max is warned about: until every process runs it, two splits may overlap. The new
// value is recorded before the fencing, and a process checks the record whenever the group gives
// it tasks: one still on the old tasks.max (it started before the change, and had nothing to fence
// then) starts none, and stops with why, instead of starting a task of the old split with a
// producer epoch no one fences.
//
// Its lifecycle is WorkerTask's. Under exit.on.task.failure=true a task that fails fails the group
// (run() rethrows, after stopping the others), as it fails a Worker run without a group; under
// false (ksink run's default) it stays FAILED, shown, until restarted (restartOwnTask()), while the
// others run. The member itself failing for good (fenced by another process under the same
// group.instance.id) fails the group either way.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "kafka_consumer.h"
#include "shared_tasks.h"
#include "topic_offset_store.h"
#include "worker_task.h"

namespace ksink {

class TaskGroup final : public WorkerTask, private RebalanceListener {
 public:
  // The task `id`; an exactly-once task runs `before_start` after its producer's fencing round
  // and before the task starts (it throws to fail the task).
  using MakeTask =
      std::function<std::shared_ptr<WorkerTask>(int id, std::function<void()> before_start)>;
  TaskGroup(SharedTasks settings, MakeTask make, const Clock& clock = Clock::steady());
  ~TaskGroup() override;

  // status() is the group's as a whole (its state, id -1); appendStatus() lists the tasks
  // running here.
  void appendStatus(std::vector<TaskStatus>& out) const override;
  // Asked from any thread, done on the group's (where the rebalances start and stop tasks).
  bool restartOwnTask(int id) override;

 private:
  struct Running {
    std::shared_ptr<WorkerTask> task;
    std::thread thread;
    std::atomic<bool> done{false};
    std::exception_ptr failure;  // set before done
    // Notified once done: what a stop waits on, on the group's clock.
    std::mutex mutex;
    std::condition_variable ended;
    // Waits on `clock` until the task's thread ended or `until`; true when it ended.
    bool awaitEnd(const Clock& clock, Clock::time_point until) {
      std::unique_lock lock(mutex);
      return clock.sleepUntil(lock, ended, until, [this] { return done.load(); });
    }
  };

  // The tasks topic prepared, the group joined.
  void start() override;
  // Heartbeats and rebalances (the listener starts and stops tasks in here); a task's failure.
  void iteration() override;
  // Every task stopped, the group left.
  std::exception_ptr finish(std::exception_ptr failure, Clock::time_point deadline) override;
  // Forwarded to every task running here (pause: and to those it starts while paused).
  void onStop(Clock::time_point deadline) override;
  void onCancel() override;
  void onPause(bool paused) override;

  // The tasks topic with tasks.max partitions at least; under exactly-once, fences the ids past
  // tasks.max that it has partitions for.
  void prepareTopic();
  std::optional<int> recordedTasksMax(TopicOffsetStore& record) const;
  // Why this process may no longer run tasks: another process recorded another tasks.max in the
  // tasks topic; nullopt while it has not. Throws when the topic cannot be read.
  std::optional<std::string> staleness();
  // staleness(), in the rebalance callback: stale, the group fails with why and no task starts;
  // an unreadable topic is warned about and the tasks start (the exactly-once ones check again).
  bool stillCurrent();
  OffsetMap onPartitionsAssigned(const std::vector<TopicPartition>& partitions) override;
  void afterAssigned(const std::vector<TopicPartition>&) override {}
  void onPartitionsRevoked(const std::vector<TopicPartition>& partitions, bool lost) override;
  void startTask(int id);
  // Stops the tasks (all when `ids` is empty; `lost`: cancels them, their failures expected) and
  // waits for them until `deadline` (plus a little); one still running then is cancelled and
  // waited for up to the transaction timeout more, then left to its thread (logged).
  void stopTasks(std::vector<int> ids, Clock::time_point deadline, bool lost = false);
  void rethrowFailure();
  // The restarts asked for, of the tasks still running here.
  void restartAsked();

  const SharedTasks settings_;
  const MakeTask make_;

  mutable std::mutex mutex_;                         // guards the two below
  std::map<int, std::shared_ptr<Running>> running_;  // shared with each task's thread
  std::exception_ptr failure_;                       // of a task already stopped
  std::set<int> restarts_;                           // tasks to restart, asked for

  std::shared_ptr<KafkaConsumer> consumer_;  // the group thread's
};

}  // namespace ksink
