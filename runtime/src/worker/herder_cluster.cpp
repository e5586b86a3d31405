// Herder in a cluster (herder.h): changes written to the config topic, and the topic's records
// applied to the connectors run here.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <utility>

#include "config_topic.h"
#include "herder.h"
#include "herder_connector.h"
#include "ksink/config_exception.h"

namespace ksink {
namespace {

// The herder's target states and the config topic's, one for one.
constexpr std::pair<Herder::Target, ConfigRecord::Target> kTargets[] = {
    {Herder::Target::kRunning, ConfigRecord::Target::kStarted},
    {Herder::Target::kPaused, ConfigRecord::Target::kPaused},
    {Herder::Target::kStopped, ConfigRecord::Target::kStopped},
};

ConfigRecord::Target recordTarget(Herder::Target target) {
  for (const auto& [herder, record] : kTargets)
    if (herder == target) return record;
  return ConfigRecord::Target::kStarted;
}

Herder::Target herderTarget(ConfigRecord::Target target) {
  for (const auto& [herder, record] : kTargets)
    if (record == target) return herder;
  return Herder::Target::kRunning;
}

}  // namespace

Herder::Info Herder::createInCluster(const std::string& name, Config config, Target initial) {
  requireJoined();
  {
    std::lock_guard lock(mutex_);
    if (connectors_.contains(name) || refused_.contains(name))
      throw ConnectorConflict(fmt::format("Connector {} already exists", name));
  }
  const auto checked = make(name, std::move(config));  // a refused one is not written
  // The target state first, as Connect writes it: the connector starts in it.
  config_topic_->write({ConfigRecord::targetState(name, recordTarget(initial)),
                        ConfigRecord::connector(name, checked->file.submitted)});
  return {checked->name, checked->type, checked->file.submitted, 0};
}

void Herder::writeTarget(const std::string& name, Target target) {
  requireJoined();
  if (!refused(name)) find(name);  // NotFound
  config_topic_->write({ConfigRecord::targetState(name, recordTarget(target))});
}

void Herder::requireJoined() const {
  if (!started())
    throw ConnectorConflict(
        "the worker is still starting: the cluster's configuration is being read");
}

void Herder::apply(const ConfigRecord& record) {
  switch (record.kind) {
    case ConfigRecord::Kind::kConnector:
      applyConnector(record.name, record.config);
      return;
    case ConfigRecord::Kind::kDeleted: {
      {
        std::lock_guard lock(mutex_);
        pending_targets_.erase(record.name);
        refused_.erase(record.name);
        if (!connectors_.contains(record.name)) return;
      }
      removeHere(record.name);
      return;
    }
    case ConfigRecord::Kind::kTarget:
      applyTarget(record.name, record.target);
      return;
    case ConfigRecord::Kind::kRestart: {
      ConnectorPtr c;
      {
        std::lock_guard lock(mutex_);
        auto it = connectors_.find(record.name);
        // A request read before the start is history (the topic keeps the last of each
        // connector's), as Connect ignores it then.
        if (!started_ || it == connectors_.end() || it->second->target == Target::kStopped) return;
        c = it->second;
      }
      restartHere(c, record.include_tasks, record.only_failed);
      return;
    }
    case ConfigRecord::Kind::kTargetDeleted:
      return;
  }
}

void Herder::applyConnector(const std::string& name, const Config& config) {
  std::lock_guard changes(changes_);
  ConnectorPtr old;
  std::optional<Target> pending;
  {
    std::lock_guard lock(mutex_);
    if (auto it = connectors_.find(name); it != connectors_.end()) old = it->second;
    if (old && old->file.submitted == config) return;  // read again: nothing changed
    if (auto it = pending_targets_.find(name); it != pending_targets_.end())
      pending = herderTarget(it->second);
  }
  ConnectorPtr fresh;
  try {
    fresh = make(name, config);
  } catch (const std::exception& e) {
    // Connect's way for a class its workers lack: the connector stays, FAILED, saying why.
    const auto reason = fmt::format("ksink does not run this connector: {}", e.what());
    spdlog::error("connector {} of the config topic: {}", name, reason);
    if (old) {
      std::lock_guard operation(old->operation);
      halt(*old);
      std::lock_guard lock(mutex_);
      old->retired = true;
      connectors_.erase(name);
      // Its target state waits for a configuration that runs, as one read before it does.
      pending_targets_[name] = recordTarget(old->target);
    }
    std::lock_guard lock(mutex_);
    refused_[name] = {config, reason};
    return;
  }
  {
    std::lock_guard lock(mutex_);
    refused_.erase(name);
    pending_targets_.erase(name);
  }
  if (!old) fresh->target = pending.value_or(Target::kRunning);
  replace(old, fresh);
}

void Herder::applyTarget(const std::string& name, ConfigRecord::Target target) {
  ConnectorPtr c;
  {
    std::lock_guard lock(mutex_);
    auto it = connectors_.find(name);
    if (it == connectors_.end()) {
      pending_targets_[name] = target;  // its configuration comes next
      return;
    }
    c = it->second;
  }
  if (target == ConfigRecord::Target::kStopped)
    stopHere(*c);
  else
    retarget(name, herderTarget(target));
}

}  // namespace ksink
