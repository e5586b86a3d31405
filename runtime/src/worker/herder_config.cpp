// Herder: connectors created, reconfigured and deleted at run time, and kept in the state
// directory (herder.h).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <utility>

#include "config_topic.h"
#include "herder.h"
#include "herder_connector.h"
#include "ksink/config_exception.h"

namespace ksink {

Herder::ConnectorPtr Herder::make(const std::string& name, Config config) const {
  if (auto it = config.find("name"); it != config.end() && it->second != name)
    throw ConfigException(
        {{"name", fmt::format("'{}' does not match the connector's name in the request, '{}'",
                              it->second, name)}});
  config["name"] = name;
  return std::make_shared<Connector>(loader_(config));
}

Herder::Info Herder::create(const std::string& name, Config config, Target initial) {
  if (config_topic_) return createInCluster(name, std::move(config), initial);
  std::lock_guard changes(changes_);
  {
    std::lock_guard lock(mutex_);
    if (connectors_.contains(name))
      throw ConnectorConflict(fmt::format("Connector {} already exists", name));
  }
  auto c = make(name, std::move(config));
  std::lock_guard operation(c->operation);
  c->target = initial;
  bool started = false;
  {
    std::lock_guard lock(mutex_);
    connectors_.emplace(name, c);
    started = started_;
  }
  spdlog::info("connector {} created ({})", name, c->file.className());
  keep(*c);
  if (started) launch(c);
  return {c->name, c->type, c->file.submitted, 0};  // as Connect answers: no task yet
}

bool Herder::putConfig(const std::string& name, Config config) {
  if (config_topic_) {
    requireJoined();
    bool created = false;
    {
      std::lock_guard lock(mutex_);
      created = !connectors_.contains(name) && !refused_.contains(name);
    }
    const auto checked = make(name, std::move(config));  // a refused one is not written
    config_topic_->write({ConfigRecord::connector(name, checked->file.submitted)});
    return created;
  }
  std::lock_guard changes(changes_);
  ConnectorPtr old;
  {
    std::lock_guard lock(mutex_);
    if (auto it = connectors_.find(name); it != connectors_.end()) old = it->second;
  }
  replace(old, make(name, std::move(config)));
  return old == nullptr;
}

Herder::Info Herder::patchConfig(const std::string& name,
                                 const std::map<std::string, std::optional<std::string>>& patch) {
  std::unique_lock changes(changes_, std::defer_lock);
  if (config_topic_)
    requireJoined();
  else
    changes.lock();
  // A connector of the config topic ksink refuses is patched as it was submitted.
  const auto refused_config = config_topic_ ? refused(name) : std::nullopt;
  const auto old = refused_config ? nullptr : find(name);
  auto config = refused_config ? refused_config->config : old->file.submitted;
  for (const auto& [key, value] : patch) {
    if (value)
      config[key] = *value;
    else
      config.erase(key);
  }
  auto fresh = make(name, std::move(config));
  if (config_topic_)
    config_topic_->write({ConfigRecord::connector(name, fresh->file.submitted)});
  else
    replace(old, std::move(fresh));
  return info(name);
}

void Herder::replace(const ConnectorPtr& old, const ConnectorPtr& fresh) {
  // The new configuration was checked before the old one stops: a refused one changes nothing.
  std::lock_guard operation(fresh->operation);
  if (old) {
    std::lock_guard old_operation(old->operation);
    halt(*old);
    std::lock_guard lock(mutex_);
    fresh->target = old->target;
    fresh->topics = old->topics;  // a new configuration keeps the topics used
    fresh->topics_reset = old->topics_reset;
    old->retired = true;
  }
  bool started = false;
  {
    std::lock_guard lock(mutex_);
    connectors_.insert_or_assign(fresh->name, fresh);
    started = started_;
  }
  spdlog::info("connector {} {}", fresh->name, old ? "reconfigured" : "created");
  keep(*fresh);
  if (started) launch(fresh);
}

void Herder::remove(const std::string& name) {
  if (config_topic_) {
    requireJoined();
    if (!refused(name)) find(name);  // NotFound
    config_topic_->write(ConfigRecord::deleted(name));
    return;
  }
  removeHere(name);
}

void Herder::removeHere(const std::string& name) {
  std::lock_guard changes(changes_);
  const auto c = find(name);
  {
    std::lock_guard operation(c->operation);
    halt(*c);
    std::lock_guard lock(mutex_);
    c->retired = true;
    connectors_.erase(name);
  }
  state_dir_.keepDeleted(name);
  spdlog::info("connector {} deleted", name);
}

void Herder::keep(const Connector& c) {
  Target target;
  {
    std::lock_guard lock(mutex_);
    target = c.target;
  }
  constexpr std::string_view kTargets[] = {"RUNNING", "PAUSED", "STOPPED"};
  state_dir_.keep(c.name, c.file.submitted, std::string(kTargets[static_cast<int>(target)]));
}

void Herder::restore() {
  for (auto& entry : state_dir_.read()) {
    if (entry.deleted) {
      std::lock_guard lock(mutex_);
      connectors_.erase(entry.name);
      continue;
    }
    try {
      auto c = make(entry.name, std::move(entry.config));
      c->target = entry.state == "PAUSED"    ? Target::kPaused
                  : entry.state == "STOPPED" ? Target::kStopped
                                             : Target::kRunning;
      std::lock_guard lock(mutex_);
      connectors_.insert_or_assign(c->name, std::move(c));
    } catch (const std::exception& e) {
      spdlog::error("connector {} kept in the state directory: not restored: {}", entry.name,
                    e.what());
    }
  }
}

}  // namespace ksink
