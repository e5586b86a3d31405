#include "herder.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "cli_exit_codes.h"
#include "config_topic.h"
#include "herder_connector.h"
#include "ksink/config_exception.h"
#include "log_context.h"
#include "published_status.h"
#include "shared_tasks.h"

namespace ksink {
namespace {

// Topics used, each with when it last was: `from`'s into `into`.
void mergeTopics(UsedTopics& into, const UsedTopics& from) {
  for (const auto& [topic, at] : from) into[topic] = std::max(into[topic], at);
}

}  // namespace
Herder::Herder(bool exit_on_failure, Loader loader, std::filesystem::path state_dir)
    : exit_on_failure_(exit_on_failure),
      loader_(std::move(loader)),
      state_dir_(std::move(state_dir)) {}

Herder::~Herder() {
  stopAll();
  for (const auto& c : all()) {
    std::lock_guard operation(c->operation);
    halt(*c);
  }
}

void Herder::add(ConnectorFile connector) {
  auto c = std::make_shared<Connector>(std::move(connector));
  std::lock_guard lock(mutex_);
  if (started_) throw std::logic_error("Herder::add after start()");
  connectors_.emplace(c->name, std::move(c));
}

void Herder::start() {
  std::lock_guard changes(changes_);
  for (const auto& c : all()) {
    std::lock_guard operation(c->operation);
    launch(c);
  }
  std::lock_guard lock(mutex_);
  started_ = true;
}

bool Herder::started() const {
  std::lock_guard lock(mutex_);
  return started_;
}

bool Herder::responsive(std::chrono::milliseconds timeout) {
  std::unique_lock changes(changes_, std::defer_lock);
  return changes.try_lock_for(timeout);
}

bool Herder::connectorsStarted() const {
  if (!started()) return false;
  for (const auto& c : all()) {
    std::shared_ptr<Worker> worker;
    {
      std::lock_guard lock(mutex_);
      worker = c->worker;
    }
    // No worker: stopped, or refused (FAILED) — nothing more will start. A connector whose tasks
    // are shared between processes shows only those held here, maybe none.
    if (!worker || tasksShared(c->file.config, c->file.sink != nullptr)) continue;
    const auto tasks = worker->status().tasks;
    if (tasks.empty() ||
        std::ranges::any_of(tasks, [](const TaskStatus& t) { return t.state == "UNASSIGNED"; }))
      return false;
  }
  return true;
}

void Herder::stopAll() {
  std::lock_guard lock(mutex_);
  stop_requested_ = true;
  changed_.notify_all();
}

int Herder::wait() {
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return stop_requested_; });
  }
  std::lock_guard changes(changes_);
  // Every connector's stop first, so they end together, each within its graceful timeout.
  for (const auto& c : all()) {
    std::shared_ptr<Worker> worker;
    {
      std::lock_guard lock(mutex_);
      worker = c->worker;
    }
    if (worker) worker->stop();
  }
  bool stopped = true;
  for (const auto& c : all()) {
    std::lock_guard operation(c->operation);
    stopped = halt(*c) && stopped;
  }
  std::lock_guard lock(mutex_);
  return failed_ || !stopped ? kExitFailed : 0;
}

void Herder::launch(const ConnectorPtr& c) {
  std::shared_ptr<Worker> worker;
  try {
    worker = c->file.makeWorker();
  } catch (...) {
    std::lock_guard lock(mutex_);
    c->failure = describeFailure(std::current_exception());
    return;
  }
  std::lock_guard lock(mutex_);
  if (stop_requested_ || c->retired || c->target == Target::kStopped) return;
  if (c->target == Target::kPaused) worker->pause();
  c->worker = worker;
  c->failure.clear();
  c->thread = std::thread([this, c, worker] {
    const LogContext::Scope context({c->name, std::nullopt});
    std::exception_ptr failure;
    try {
      worker->run();
    } catch (...) {
      failure = std::current_exception();
    }
    ended(*c, worker, failure);
  });
}

void Herder::ended(Connector& c, const std::shared_ptr<Worker>& worker,
                   std::exception_ptr failure) {
  std::lock_guard lock(mutex_);
  if (!failure || c.worker != worker) return;
  c.failure = describeFailure(failure);
  spdlog::error("connector {} failed: {}", c.name, c.failure);
  if (exit_on_failure_ && !stop_requested_) {
    // exit.on.task.failure=true: the whole process stops, as before the REST API.
    failed_ = true;
    stop_requested_ = true;
    changed_.notify_all();
  }
}

bool Herder::halt(Connector& c) {
  std::shared_ptr<Worker> worker;
  std::thread thread;
  bool failed_before = false;
  {
    std::lock_guard lock(mutex_);
    worker = c.worker;
    thread = std::move(c.thread);
    failed_before = !c.failure.empty();
  }
  if (worker) worker->stop();
  if (thread.joinable()) thread.join();
  std::lock_guard lock(mutex_);
  if (worker) mergeTopics(c.topics, worker->activeTopics());
  return failed_before || c.failure.empty();
}

std::vector<std::string> Herder::activeTopics(const std::string& name) const {
  std::shared_ptr<Worker> worker;
  UsedTopics used;
  std::chrono::steady_clock::time_point reset;
  {
    std::lock_guard lock(mutex_);
    auto it = connectors_.find(name);
    if (it == connectors_.end()) return {};
    worker = it->second->worker;
    used = it->second->topics;
    reset = it->second->topics_reset;
  }
  if (worker) mergeTopics(used, worker->activeTopics());
  std::vector<std::string> out;
  for (const auto& [topic, at] : used)
    if (at > reset) out.push_back(topic);
  return out;
}

void Herder::resetActiveTopics(const std::string& name) {
  std::lock_guard lock(mutex_);
  auto it = connectors_.find(name);
  if (it == connectors_.end()) return;
  it->second->topics.clear();
  it->second->topics_reset = std::chrono::steady_clock::now();
}

Herder::ConnectorPtr Herder::find(const std::string& name) const {
  std::lock_guard lock(mutex_);
  auto it = connectors_.find(name);
  if (it == connectors_.end()) throw NotFound(fmt::format("Connector {} not found", name));
  return it->second;
}

std::vector<Herder::ConnectorPtr> Herder::all() const {
  std::lock_guard lock(mutex_);
  std::vector<ConnectorPtr> out;
  for (const auto& [name, c] : connectors_) out.push_back(c);
  return out;
}

std::vector<std::string> Herder::names() const {
  std::vector<std::string> out;
  for (const auto& c : all()) out.push_back(c->name);
  std::lock_guard lock(mutex_);
  for (const auto& [name, refused] : refused_) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<Herder::Refused> Herder::refused(const std::string& name) const {
  std::lock_guard lock(mutex_);
  if (auto it = refused_.find(name); it != refused_.end() && !connectors_.contains(name))
    return it->second;
  return std::nullopt;
}

Herder::Info Herder::info(const std::string& name) const {
  if (auto r = refused(name)) return {name, "unknown", r->config, 0};
  const auto found = find(name);
  const auto& c = *found;
  // The tasks its status shows: those run here, and in a cluster the others'.
  return {c.name, c.type, c.file.submitted, static_cast<int>(state(name).tasks.size())};
}

Herder::State Herder::state(const std::string& name) const {
  if (auto r = refused(name)) return {name, "unknown", "FAILED", r->reason, {}, {}};
  const auto found = find(name);
  const auto& c = *found;
  State out{c.name, c.type, "RUNNING", "", {}, {}};
  std::shared_ptr<Worker> worker;
  {
    std::lock_guard lock(mutex_);
    worker = c.worker;
    out.trace = c.failure;
    if (!started_)
      out.state = "UNASSIGNED";
    else if (!c.failure.empty())
      out.state = "FAILED";
    else if (c.target == Target::kStopped)
      out.state = "STOPPED";
    else if (c.target == Target::kPaused)
      out.state = "PAUSED";
  }
  if (worker) out.tasks = worker->status().tasks;
  if (out.state != "STOPPED") addClusterTasks(c, out);
  return out;
}

std::vector<ConnectorStatus> Herder::statuses() const {
  std::vector<ConnectorStatus> out;
  for (const auto& c : all()) {
    std::shared_ptr<Worker> worker;
    {
      std::lock_guard lock(mutex_);
      worker = c->worker;
    }
    if (worker) {
      out.push_back(worker->status());
      continue;
    }
    ConnectorStatus stopped;
    stopped.name = c->name;
    stopped.type = c->type;
    stopped.connector_class = c->file.config.getString("connector.class");
    out.push_back(std::move(stopped));
  }
  std::lock_guard lock(mutex_);
  for (const auto& [name, r] : refused_) {
    ConnectorStatus refused;
    refused.name = name;
    refused.type = "unknown";
    if (auto it = r.config.find("connector.class"); it != r.config.end())
      refused.connector_class = it->second;
    out.push_back(std::move(refused));
  }
  return out;
}

ConnectorFile Herder::file(const std::string& name) const {
  return find(name)->file;
}

std::string Herder::whileStopped(const std::string& name,
                                 const std::function<std::string(const ConnectorFile&)>& use) {
  const auto c = find(name);
  std::lock_guard operation(c->operation);
  {
    std::lock_guard lock(mutex_);
    if (c->target != Target::kStopped)
      throw ConnectorConflict(fmt::format(
          "Connectors must be in the STOPPED state before their offsets can be modified. This "
          "can be done for the specified connector by issuing a 'PUT' request to the "
          "'/connectors/{}/stop' endpoint",
          name));
  }
  return use(c->file);
}

}  // namespace ksink
