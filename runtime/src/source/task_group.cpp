#include "task_group.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

#include "kafka_producer.h"
#include "ksink/detail/config_parse.h"
#include "topic_admin.h"
#include "topic_offset_store.h"

namespace ksink {
namespace {

constexpr std::chrono::milliseconds kMembershipPoll{100};
// How long a task may take beyond the stop's deadline before it is given up on.
constexpr std::chrono::milliseconds kStopSlack{500};
// The tasks topic's record of the tasks.max the group runs with.
constexpr std::string_view kTasksMaxKey = "tasks.max";
// The tasks topic is named after group.id (and the connector).
const TopicOffsetStore::Role kTasksTopic{"tasks topic", "group.id"};

}  // namespace

TaskGroup::TaskGroup(SharedTasks settings, MakeTask make, const Clock& clock)
    : WorkerTask(-1, fmt::format("{} {} (its shared tasks)", settings.kind, settings.worker.name),
                 settings.worker.name, clock, settings.worker.shutdown_graceful_timeout,
                 settings.worker.stall_after),
      settings_(std::move(settings)),
      make_(std::move(make)) {}

TaskGroup::~TaskGroup() {
  // run() stopped everything; a task thread still here was given up on (it owns its Running).
  for (auto& [id, running] : running_)
    if (running->thread.joinable()) running->thread.detach();
}

void TaskGroup::onStop(Clock::time_point deadline) {
  // Outside the lock: a stop wakes the task, whose wakeup() is the connector's code.
  std::vector<std::shared_ptr<WorkerTask>> tasks;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, running] : running_) tasks.push_back(running->task);
  }
  for (auto& task : tasks) task->stop(deadline);
}

void TaskGroup::onCancel() {
  std::lock_guard lock(mutex_);
  for (auto& [id, running] : running_) running->task->cancel();
}

void TaskGroup::onPause(bool paused) {
  std::lock_guard lock(mutex_);
  for (auto& [id, running] : running_) {
    if (paused)
      running->task->pause();
    else
      running->task->resume();
  }
}

std::optional<int> TaskGroup::recordedTasksMax(TopicOffsetStore& record) const {
  if (const auto stored = record.get(kTasksMaxKey))
    return static_cast<int>(detail::parseLong(*stored).value_or(0));
  return std::nullopt;
}

void TaskGroup::prepareTopic() {
  // The topic, compacted, holds one record: the tasks.max the group's tasks last ran with.
  TopicOffsetStore record(settings_.client_properties, settings_.task_group,
                          settings_.worker.tasks_max, settings_.replication_factor, kTasksTopic);
  record.start();
  KafkaProducer admin(settings_.client_properties, [](uint64_t, const auto&, const auto&) {});
  const int tasks_max = settings_.worker.tasks_max;
  const int partitions = ensurePartitions(admin.handle(), settings_.task_group, tasks_max);
  const auto previous = recordedTasksMax(record);
  if (previous != tasks_max) {
    // Recorded before the fencing: a process of the old split that is given a task from now on
    // finds the change and does not start it (onPartitionsAssigned), so no task of the old split
    // can begin after the fencing with a producer epoch nothing fences.
    std::optional<std::optional<std::string>> written;
    record.write({{std::string(kTasksMaxKey), std::to_string(tasks_max)}},
                 [&](const std::optional<std::string>& error) { written = error; });
    const auto until = clock_.now() + settings_.transaction_timeout;
    while (!written && clock_.now() < until) record.poll(kMembershipPoll);
    if (!written || *written)
      throw std::runtime_error(fmt::format("the tasks topic {}: tasks.max not recorded: {}",
                                           settings_.task_group,
                                           written ? **written : std::string("timed out")));
  }
  if (settings_.exactly_once) {
    // A task of another tasks.max may still run somewhere (a process not yet restarted with this
    // configuration): it shares the work out differently, so any of its ids may now read what
    // one of ours reads. They are all fenced before ours start (as Connect fences the previous
    // generation's); with the same tasks.max, only the ids past it.
    const int first = previous && *previous != tasks_max ? 0 : tasks_max;
    const int last = std::max({partitions, tasks_max, previous.value_or(0)});
    for (int id = first; id < last && !stop_.requested(); ++id) {
      auto properties = settings_.client_properties;
      properties["transactional.id"] = settings_.transactional_id_prefix + std::to_string(id);
      KafkaProducer fencer(properties, [](uint64_t, const auto&, const auto&) {});
      fencer.initTransactions(settings_.transaction_timeout);
      spdlog::info(
          "{} {}: fenced the producers of task {} (tasks.max is {} now{})", settings_.kind,
          settings_.worker.name, id, tasks_max,
          previous && *previous != tasks_max ? fmt::format(", was {}", *previous) : std::string());
    }
  } else if (previous && *previous != tasks_max && settings_.splits_overlap) {
    spdlog::warn(
        "{} {}: tasks.max changed from {} to {}; until every process runs the new "
        "configuration, tasks that share the work out differently may read the same data "
        "(duplicates; exactly.once.source.support=enabled fences them instead)",
        settings_.kind, settings_.worker.name, *previous, tasks_max);
  }
}

std::optional<std::string> TaskGroup::staleness() {
  TopicOffsetStore record(settings_.client_properties, settings_.task_group,
                          settings_.worker.tasks_max, settings_.replication_factor, kTasksTopic);
  record.start();
  const auto recorded = recordedTasksMax(record);
  if (!recorded || *recorded == settings_.worker.tasks_max) return std::nullopt;
  return fmt::format(
      "{} {}: another process changed tasks.max to {} (recorded in {}); this one "
      "runs {} and starts no task of that old split of the work: restart it with the new "
      "configuration",
      settings_.kind, settings_.worker.name, *recorded, settings_.task_group,
      settings_.worker.tasks_max);
}

bool TaskGroup::stillCurrent() {
  std::optional<std::string> stale;
  try {
    stale = staleness();
  } catch (const std::exception& e) {
    // Not known now (the broker away): an exactly-once task checks again before it starts.
    spdlog::warn("{} {}: the tasks topic {} could not be read: {}", settings_.kind,
                 settings_.worker.name, settings_.task_group, e.what());
    return true;
  }
  if (!stale) return true;
  std::lock_guard lock(mutex_);
  if (!failure_) failure_ = std::make_exception_ptr(std::runtime_error(*stale));
  return false;
}

void TaskGroup::start() {
  prepareTopic();
  consumer_ = KafkaConsumer::create(settings_.membership_properties, *this);
  consumer_->subscribe({settings_.task_group});
  spdlog::info("{} {}: sharing {} task(s) in group {}", settings_.kind, settings_.worker.name,
               settings_.worker.tasks_max, settings_.task_group);
}

void TaskGroup::iteration() {
  // The record the topic holds is of no interest here.
  const auto m = consumer_->poll(kMembershipPoll);
  if (m && m->err == RD_KAFKA_RESP_ERR__FATAL)
    throw std::runtime_error(
        fmt::format("{} {}: the group member failed for good (another process joined with "
                    "the same consumer.group.instance.id?): {}",
                    settings_.kind, settings_.worker.name, rd_kafka_message_errstr(m.get())));
  rethrowFailure();
  restartAsked();
}

bool TaskGroup::restartOwnTask(int id) {
  std::lock_guard lock(mutex_);
  if (!running_.contains(id))
    throw std::out_of_range(fmt::format("task {} of {} {} does not run here", id, settings_.kind,
                                        settings_.worker.name));
  // Asked while the group stops: iteration() will not run again to do it.
  if (stop_.requested())
    throw std::logic_error(fmt::format("{} {} is stopping: its tasks are not restarted",
                                       settings_.kind, settings_.worker.name));
  restarts_.insert(id);
  return true;
}

void TaskGroup::restartAsked() {
  std::set<int> asked;
  {
    std::lock_guard lock(mutex_);
    asked.swap(restarts_);
  }
  for (int id : asked) {
    bool ended = false;
    {
      std::lock_guard lock(mutex_);
      auto it = running_.find(id);
      if (it == running_.end()) continue;  // moved meanwhile
      ended = it->second->done;
    }
    spdlog::info("{} {}: restarting task {} here", settings_.kind, settings_.worker.name, id);
    // A task that ended (FAILED) is replaced by startTask(); one that runs is stopped first.
    if (!ended) stopTasks({id}, clock_.now() + settings_.worker.shutdown_graceful_timeout);
    if (!stop_.requested()) startTask(id);
  }
}

std::exception_ptr TaskGroup::finish(std::exception_ptr failure, Clock::time_point deadline) {
  stopTasks({}, deadline);
  if (consumer_) consumer_->close(std::max(clock_.timeoutUntil(deadline), kStopSlack));
  std::lock_guard lock(mutex_);
  return failure ? failure : failure_;
}

void TaskGroup::rethrowFailure() {
  std::lock_guard lock(mutex_);
  if (failure_) std::rethrow_exception(failure_);
  // exit.on.task.failure=false (ksink run's default): a failed task stays FAILED, shown and
  // restartable, while the others run, as a Worker's own tasks do.
  if (!settings_.worker.exit_on_task_failure) return;
  for (auto& [id, running] : running_)
    if (running->done && running->failure) std::rethrow_exception(running->failure);
}

OffsetMap TaskGroup::onPartitionsAssigned(const std::vector<TopicPartition>& partitions) {
  // A process of another configuration may have changed tasks.max since this one started.
  if (!partitions.empty() && !stop_.requested() && !stillCurrent()) return {};
  for (const auto& tp : partitions) {
    if (tp.partition >= settings_.worker.tasks_max) continue;  // an id no longer in use
    if (!stop_.requested()) startTask(tp.partition);
  }
  return {};
}

void TaskGroup::onPartitionsRevoked(const std::vector<TopicPartition>& partitions, bool lost) {
  std::vector<int> ids;
  for (const auto& tp : partitions) ids.push_back(tp.partition);
  if (lost)
    spdlog::warn(
        "{} {}: tasks {} were taken from this process (it was away "
        "longer than consumer.session.timeout.ms)",
        settings_.kind, settings_.worker.name, ids);
  for (int id : ids)
    if (id < settings_.worker.tasks_max)
      spdlog::info("{} {}: stopping task {} here ({})", settings_.kind, settings_.worker.name, id,
                   lost ? "taken" : "moved by the group");
  // Lost tasks run elsewhere already: cancelled (nothing committed, their failures — fenced —
  // expected), not stopped.
  stopTasks(ids, clock_.now() + settings_.worker.shutdown_graceful_timeout, lost);
}

void TaskGroup::startTask(int id) {
  std::lock_guard lock(mutex_);
  if (auto it = running_.find(id); it != running_.end()) {
    if (!it->second->done) return;  // already running here
    if (it->second->thread.joinable()) it->second->thread.join();
    running_.erase(it);
  }
  auto running = std::make_shared<Running>();
  // An exactly-once task checks the record once more after its producer's fencing round, before
  // it starts: a change recorded before then (the changing process records, then fences) is seen
  // there, and one recorded after it fences this task's producer.
  running->task = make_(id, [this] {
    if (auto stale = staleness()) throw std::runtime_error(*stale);
  });
  running->task->shareTopics(topics_);
  if (pause_.paused()) running->task->pause();
  running->thread = std::thread([r = running] {
    try {
      r->task->run();
    } catch (...) {
      r->failure = std::current_exception();
    }
    {
      std::lock_guard lock(r->mutex);
      r->done = true;
    }
    r->ended.notify_all();
  });
  running_.emplace(id, std::move(running));
  spdlog::info("{} {}: running task {} here", settings_.kind, settings_.worker.name, id);
}

void TaskGroup::stopTasks(std::vector<int> ids, Clock::time_point deadline, bool lost) {
  std::vector<std::shared_ptr<Running>> stopping;
  {
    std::lock_guard lock(mutex_);
    if (ids.empty())
      for (const auto& [id, running] : running_) ids.push_back(id);
    for (int id : ids) {
      auto it = running_.find(id);
      if (it == running_.end()) continue;
      stopping.push_back(std::move(it->second));
      running_.erase(it);
    }
  }
  for (auto& running : stopping) {  // outside the lock: see onStop()
    if (lost) running->task->cancel();
    running->task->stop(deadline);
  }
  for (auto& running : stopping) {
    // Its partition is not given up while it runs: past the deadline it is cancelled (its open
    // transaction dropped) and waited for a while more.
    if (!running->awaitEnd(clock_, deadline + kStopSlack)) {
      running->task->cancel();
      running->awaitEnd(clock_, clock_.now() + settings_.transaction_timeout);
    }
    if (running->done) {
      running->thread.join();
      std::lock_guard lock(mutex_);
      if (running->failure && !lost && !failure_ && settings_.worker.exit_on_task_failure)
        failure_ = running->failure;  // run() reports
      continue;
    }
    spdlog::error(
        "{} {}: a task did not stop within "
        "task.shutdown.graceful.timeout.ms; abandoning it",
        settings_.kind, settings_.worker.name);
    running->task->cancel();
    running->thread.detach();
  }
}

void TaskGroup::appendStatus(std::vector<TaskStatus>& out) const {
  std::lock_guard lock(mutex_);
  for (const auto& [id, running] : running_)
    if (id >= 0) out.push_back(running->task->status());
}

}  // namespace ksink
