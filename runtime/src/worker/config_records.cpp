#include "config_records.h"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "json_text.h"

namespace ksink {
namespace {

constexpr std::string_view kConnector = "connector-";
constexpr std::string_view kTarget = "target-state-";
constexpr std::string_view kRestart = "restart-connector-";

// Connect's names of the target states.
constexpr std::pair<ConfigRecord::Target, std::string_view> kTargetNames[] = {
    {ConfigRecord::Target::kStarted, "STARTED"},
    {ConfigRecord::Target::kPaused, "PAUSED"},
    {ConfigRecord::Target::kStopped, "STOPPED"},
};

std::string_view targetName(ConfigRecord::Target target) {
  for (const auto& [t, name] : kTargetNames)
    if (t == target) return name;
  return "STARTED";
}

ConfigRecord::Target readTarget(const Value::Object& object) {
  // state.v2 when a 3.5+ worker wrote it (it knows STOPPED), else state.
  const Value* state = jsonMember(object, "state.v2");
  if (!state || state->kind() != Value::Kind::kString) state = jsonMember(object, "state");
  if (!state || state->kind() != Value::Kind::kString)
    throw std::invalid_argument("a target state without \"state\"");
  const auto& text = state->asString();
  for (const auto& [target, name] : kTargetNames)
    if (text == name) return target;
  throw std::invalid_argument(fmt::format("an unknown target state '{}'", text));
}

std::map<std::string, std::string> readProperties(const Value::Object& object) {
  const Value* properties = jsonMember(object, "properties");
  if (!properties || properties->kind() != Value::Kind::kObject)
    throw std::invalid_argument("a connector configuration without \"properties\"");
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : properties->asObject()) {
    if (value.isNull()) continue;  // Connect writes a key set to null as null
    out[key] = value.kind() == Value::Kind::kString ? value.asString() : value.toJson();
  }
  return out;
}

bool flag(const Value::Object& object, std::string_view name) {
  const Value* v = jsonMember(object, name);
  return v && v->kind() == Value::Kind::kBoolean && v->asBoolean();
}

}  // namespace

std::optional<ConfigRecord> ConfigRecord::read(std::string_view key,
                                               const std::optional<std::string>& value) {
  ConfigRecord out;
  if (key.starts_with(kConnector)) {
    out.name = key.substr(kConnector.size());
    if (!value) {
      out.kind = Kind::kDeleted;
      return out;
    }
    out.config = readProperties(parseJsonObject(*value));
    return out;
  }
  if (key.starts_with(kTarget)) {
    if (!value) return std::nullopt;  // written with the connector's tombstone
    out.kind = Kind::kTarget;
    out.name = key.substr(kTarget.size());
    out.target = readTarget(parseJsonObject(*value));
    return out;
  }
  if (key.starts_with(kRestart)) {
    if (!value) return std::nullopt;
    const auto object = parseJsonObject(*value);
    out.kind = Kind::kRestart;
    out.name = key.substr(kRestart.size());
    out.include_tasks = flag(object, "include-tasks");
    out.only_failed = flag(object, "only-failed");
    return out;
  }
  return std::nullopt;
}

std::string ConfigRecord::key() const {
  switch (kind) {
    case Kind::kTarget:
    case Kind::kTargetDeleted:
      return fmt::format("{}{}", kTarget, name);
    case Kind::kRestart:
      return fmt::format("{}{}", kRestart, name);
    default:
      return fmt::format("{}{}", kConnector, name);
  }
}

std::optional<std::string> ConfigRecord::value() const {
  switch (kind) {
    case Kind::kConnector:
      return fmt::format(R"({{"properties":{}}})", jsonMap(config));
    case Kind::kDeleted:
    case Kind::kTargetDeleted:
      return std::nullopt;
    case Kind::kTarget:
      // STOPPED is PAUSED for workers that know no STOPPED, as Connect writes it.
      return fmt::format(R"({{"state":"{}","state.v2":"{}"}})",
                         target == Target::kStarted ? "STARTED" : "PAUSED", targetName(target));
    case Kind::kRestart:
      return fmt::format(R"({{"include-tasks":{},"only-failed":{}}})", include_tasks, only_failed);
  }
  return std::nullopt;
}

ConfigRecord ConfigRecord::connector(std::string name, std::map<std::string, std::string> config) {
  ConfigRecord out;
  out.name = std::move(name);
  out.config = std::move(config);
  return out;
}

std::vector<ConfigRecord> ConfigRecord::deleted(const std::string& name) {
  ConfigRecord connector, target;
  connector.kind = Kind::kDeleted;
  target.kind = Kind::kTargetDeleted;
  connector.name = target.name = name;
  return {connector, target};
}

ConfigRecord ConfigRecord::targetState(std::string name, Target target) {
  ConfigRecord out;
  out.kind = Kind::kTarget;
  out.name = std::move(name);
  out.target = target;
  return out;
}

ConfigRecord ConfigRecord::restart(std::string name, bool include_tasks, bool only_failed) {
  ConfigRecord out;
  out.kind = Kind::kRestart;
  out.name = std::move(name);
  out.include_tasks = include_tasks;
  out.only_failed = only_failed;
  return out;
}

}  // namespace ksink
