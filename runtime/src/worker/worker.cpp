#include "ksink/worker.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "clock.h"
#include "exactly_once_source_task.h"
#include "ksink/config_exception.h"
#include "offset_stores.h"
#include "sink_connector_config.h"
#include "source_connector_config.h"
#include "source_task_adapter.h"
#include "source_task_group.h"
#include "worker_config.h"
#include "worker_sink_task.h"
#include "worker_source_task.h"

namespace ksink {
namespace {

// Shared by run() and the task threads, which may outlive run() when a stop times out.
struct RunState {
  std::mutex mutex;
  std::condition_variable changed;
  int running = 0;
  std::exception_ptr first_failure;
};

// How a Worker makes the tasks of its connector's kind.
struct TaskKind {
  std::string type;  // Connect's connector type: sink, source
  // Consumers of one group start one after the other (see awaitFirstAssignment).
  bool stagger_start = false;
  std::function<std::shared_ptr<WorkerTask>(int id, const Clock& clock)> make;
  // How many to make; nullopt: tasks.max.
  std::optional<int> count;
};

TaskKind sinkKind(const Config& config, TaskFactory factory) {
  auto settings = SinkConnectorConfig::parse(config);
  return {"sink", true,
          [settings, config, factory = std::move(factory)](int id, const Clock& clock) {
            auto task = factory();
            if (!task) throw std::runtime_error("the task factory returned no task");
            return std::make_shared<WorkerSinkTask>(id, settings, config, std::move(task), clock);
          },
          std::nullopt};
}

// What exactly.once.support=required and transaction.boundary=connector ask of the connector
// (Connect's preflight checks, DistributedHerder): refused at start, with the key and why.
void checkCapabilities(const SourceConnectorConfig& settings, const Config& config,
                       const SourceCapabilities& capabilities) {
  std::vector<ConfigProblem> problems;
  if (settings.exactly_once_required &&
      (!capabilities.exactly_once ||
       capabilities.exactly_once(config) != ExactlyOnceSupport::kSupported))
    problems.push_back(
        {"exactly.once.support",
         capabilities.exactly_once
             ? "required, but the connector does not support exactly-once delivery with this "
               "configuration"
             : "required, but the connector does not say whether it supports exactly-once "
               "delivery"});
  if (settings.exactly_once &&
      settings.transaction_boundary == SourceConnectorConfig::TransactionBoundary::kConnector &&
      (!capabilities.transaction_boundaries ||
       capabilities.transaction_boundaries(config) != ConnectorTransactionBoundaries::kSupported))
    problems.push_back({"transaction.boundary",
                        "connector, but the connector's tasks do not define transaction "
                        "boundaries: use poll or interval"});
  if (!problems.empty()) throw ConfigException(std::move(problems));
}

TaskKind sourceKind(const Config& config, detail::SourceDriverFactory factory,
                    const SourceCapabilities& capabilities) {
  auto settings = SourceConnectorConfig::parse(config);
  checkCapabilities(settings, config, capabilities);
  auto make = [settings, config, factory = std::move(factory)](
                  int id, const Clock& clock,
                  std::function<void()> before_start = {}) -> std::shared_ptr<WorkerTask> {
    auto task = factory();
    if (!task) throw std::runtime_error("the task factory returned no task");
    // Which of the connector's tasks this is, for a source that shares its work out
    // (Connect's connectors split it in taskConfigs(); ksink's tasks take their share).
    auto values = config.values();
    values[std::string(kSourceTaskIdKey)] = std::to_string(id);
    Config task_config(std::move(values), config.definitions());
    if (settings.exactly_once)
      return std::make_shared<ExactlyOnceSourceTask>(
          id, settings, std::move(task_config), std::move(task), openTopicOffsetStore(settings),
          clock, std::move(before_start));
    return std::make_shared<WorkerSourceTask>(id, settings, std::move(task_config), std::move(task),
                                              openOffsetStore(settings), clock);
  };
  if (!settings.shared_tasks) return {"source", false, std::move(make), std::nullopt};
  // The processes running the connector share its tasks: this one runs those the group gives it.
  return {"source", false,
          [settings, make = std::move(make)](int, const Clock& clock) {
            return std::make_shared<SourceTaskGroup>(
                settings,
                [make, &clock](int id, std::function<void()> before_start) {
                  return make(id, clock, std::move(before_start));
                },
                clock);
          },
          1};
}

}  // namespace

class Worker::Impl {
 public:
  Impl(Config config, TaskKind kind)
      : settings_(WorkerConfig::parse(config)),
        config_(std::move(config)),
        kind_(std::move(kind)) {}

  void run();
  void stop();
  ConnectorStatus status();

 private:
  // Makes the tasks and starts their threads; false when a stop came first.
  bool startTasks(const std::shared_ptr<RunState>& state, std::vector<std::thread>& threads);
  void awaitFirstAssignment(RunState& state);
  // Until every task ended, stopping the others when one failed and giving up on those still
  // running past the stop's deadline (their number).
  int awaitTasks(RunState& state);

  const WorkerConfig settings_;
  const Config config_;
  TaskKind kind_;
  const Clock& clock_ = Clock::steady();  // the stop deadline and the wait for it
  std::mutex mutex_;                      // guards tasks_, stop_deadline_
  std::vector<std::shared_ptr<WorkerTask>> tasks_;
  std::optional<Clock::time_point> stop_deadline_;
};

void Worker::Impl::run() {
  auto state = std::make_shared<RunState>();
  std::vector<std::thread> threads;
  if (!startTasks(state, threads)) return;
  const int abandoned = awaitTasks(*state);
  for (auto& t : threads) {
    if (abandoned == 0)
      t.join();
    else
      t.detach();  // the thread owns its task through shared_ptr
  }
  std::lock_guard guard(state->mutex);
  if (state->first_failure) std::rethrow_exception(state->first_failure);
  // Not a graceful stop: what the abandoned tasks had in flight was neither committed nor closed.
  if (abandoned > 0)
    throw std::runtime_error(
        fmt::format("{} task(s) did not stop within task.shutdown.graceful.timeout.ms and were "
                    "abandoned",
                    abandoned));
}

bool Worker::Impl::startTasks(const std::shared_ptr<RunState>& state,
                              std::vector<std::thread>& threads) {
  // The factory is the connector's code and may take its time: run it without the lock, so
  // stop() and status() never wait for it.
  {
    std::lock_guard lock(mutex_);
    if (stop_deadline_) return false;  // stopped before it started
  }
  std::vector<std::shared_ptr<WorkerTask>> created;
  for (int i = 0; i < kind_.count.value_or(settings_.tasks_max); ++i)
    created.push_back(kind_.make(i, clock_));
  auto launch = [&threads, state](std::shared_ptr<WorkerTask> task) {
    threads.emplace_back([task, state] {
      std::exception_ptr failure;
      try {
        task->run();
      } catch (...) {
        failure = std::current_exception();
      }
      std::lock_guard lock(state->mutex);
      if (failure && !state->first_failure) state->first_failure = failure;
      --state->running;
      state->changed.notify_all();
    });
  };
  {
    std::lock_guard lock(mutex_);
    if (stop_deadline_) return false;  // stopped while the factory ran
    tasks_ = std::move(created);
    state->running = static_cast<int>(tasks_.size());
    launch(tasks_.front());
  }
  if (tasks_.size() > 1 && kind_.stagger_start) awaitFirstAssignment(*state);
  std::lock_guard lock(mutex_);
  for (size_t i = 1; i < tasks_.size(); ++i) launch(tasks_[i]);
  return true;
}

int Worker::Impl::awaitTasks(RunState& state) {
  std::unique_lock lock(state.mutex);
  bool stopping_others = false;
  while (state.running > 0) {
    std::optional<Clock::time_point> deadline;
    {
      std::lock_guard guard(mutex_);
      deadline = stop_deadline_;
    }
    if (state.first_failure && !stopping_others) {
      // One task failed: stop the others gracefully so run() can report the failure.
      stopping_others = true;
      lock.unlock();
      stop();
      lock.lock();
      continue;
    }
    if (!deadline) {
      state.changed.wait_for(lock, std::chrono::milliseconds(100));
      continue;
    }
    // Tasks bound their own teardown by the deadline; allow a little slack, then give up on them.
    const auto give_up = *deadline + std::chrono::milliseconds(500);
    if (!clock_.sleepUntil(lock, state.changed, give_up, [&] { return state.running == 0; })) {
      spdlog::error("{} task(s) did not stop within task.shutdown.graceful.timeout.ms; abandoning",
                    state.running);
      for (auto& task : tasks_) task->cancel();
      return state.running;
    }
  }
  return 0;
}

// Consumers of one group that join at once cost librdkafka 2.0.2 two seconds when the broker
// completes the first join without waiting (group.initial.rebalance.delay.ms=0): the first
// member's SyncGroup fails with REBALANCE_IN_PROGRESS and it may rejoin only a second after its
// last JoinGroup, which its main thread, asleep for up to a second, notices a second later. So
// the first task joins alone and starts working; the others follow once it has partitions (at
// most a second later: on a broker that delays the first join they still make its first
// generation), and one rebalance spreads the partitions.
void Worker::Impl::awaitFirstAssignment(RunState& state) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  const auto& first = *tasks_.front();
  while (std::chrono::steady_clock::now() < until) {
    {
      std::lock_guard lock(mutex_);
      if (stop_deadline_) return;
    }
    {
      std::lock_guard lock(state.mutex);
      if (state.running < static_cast<int>(tasks_.size())) return;  // the first task ended
    }
    if (!first.status().partitions.empty()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void Worker::Impl::stop() {
  std::vector<std::shared_ptr<WorkerTask>> tasks;
  Clock::time_point deadline;
  {
    std::lock_guard lock(mutex_);
    if (!stop_deadline_) stop_deadline_ = clock_.now() + settings_.shutdown_graceful_timeout;
    deadline = *stop_deadline_;
    tasks = tasks_;
  }
  // Without the lock: a task's stop wakes its code (a source's wakeup() may reach a database
  // that stopped answering), and status() or the wait for the deadline must not wait on it.
  for (auto& task : tasks) task->stop(deadline);
}

ConnectorStatus Worker::Impl::status() {
  ConnectorStatus out;
  out.name = settings_.name;
  out.type = kind_.type;
  out.connector_class = settings_.connector_class;
  std::lock_guard lock(mutex_);
  for (const auto& task : tasks_) task->appendStatus(out.tasks);
  return out;
}

Worker::Worker(Config config, TaskFactory factory)
    : impl_(std::make_unique<Impl>(config, sinkKind(config, std::move(factory)))) {}

Worker::Worker(Config config, SourceTaskFactory factory, const SourceCapabilities& capabilities)
    : impl_(std::make_unique<Impl>(
          config, sourceKind(config, sourceDriverFactory(std::move(factory)), capabilities))) {}

Worker::~Worker() = default;

void Worker::run() {
  impl_->run();
}
void Worker::stop() {
  impl_->stop();
}
ConnectorStatus Worker::status() const {
  return impl_->status();
}

const ConfigDef& Worker::configDef() {
  return SinkConnectorConfig::configDef();
}

const ConfigDef& Worker::sourceConfigDef() {
  return SourceConnectorConfig::configDef();
}

}  // namespace ksink
