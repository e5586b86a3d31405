#include "config_infos.h"

#include <fmt/format.h>

#include <vector>

#include "connector_file.h"
#include "json_text.h"
#include "ksink/config_exception.h"
#include "ksink/connector_registry.h"
#include "ksink/worker.h"

namespace ksink {
namespace {

std::string_view typeName(ConfigDef::Type type) {
  switch (type) {
    case ConfigDef::Type::kBoolean:
      return "BOOLEAN";
    case ConfigDef::Type::kInt:
      return "INT";
    case ConfigDef::Type::kLong:
      return "LONG";
    case ConfigDef::Type::kDouble:
      return "DOUBLE";
    case ConfigDef::Type::kList:
      return "LIST";
    case ConfigDef::Type::kPassword:
      return "PASSWORD";
    default:
      return "STRING";
  }
}

std::string_view importanceName(ConfigDef::Importance importance) {
  return importance == ConfigDef::Importance::kHigh     ? "HIGH"
         : importance == ConfigDef::Importance::kMedium ? "MEDIUM"
                                                        : "LOW";
}

// A key a problem names that no definition has (a misspelt one, say).
ConfigDef::Key undefinedKey(const std::string& name) {
  ConfigDef::Key key;
  key.name = name;
  key.default_value = "";
  key.importance = ConfigDef::Importance::kLow;
  return key;
}

std::string optionalText(const std::optional<std::string>& text) {
  return text ? jsonText(*text) : "null";
}

// Connect's ConfigKeyInfo.
std::string keyInfoJson(const ConfigDef::Key& key) {
  return fmt::format(
      R"({{"name":{},"type":"{}","required":{},"default_value":{},"importance":"{}",)"
      R"("documentation":{},"group":null,"order":-1,"width":"NONE","display_name":{},)"
      R"("dependents":[]}})",
      jsonText(key.name), typeName(key.type), key.default_value ? "false" : "true",
      optionalText(key.default_value), importanceName(key.importance), jsonText(key.doc),
      jsonText(key.name));
}

// The keys of the connector `plugin` serves for `config` (the worker's and its own); nullopt for
// a class not served.
std::optional<ConfigDef> definitionOf(std::string_view plugin,
                                      const std::map<std::string, std::string>& config) {
  const auto& registry = ConnectorRegistry::global();
  if (const auto* sink = registry.find(plugin, config))
    return ConfigDef(Worker::configDef()).include(sink->config_def);
  if (const auto* source = registry.findSource(plugin, config))
    return ConfigDef(Worker::sourceConfigDef()).include(source->config_def);
  return std::nullopt;
}

}  // namespace

std::string configInfosJson(const std::map<std::string, std::string>& worker,
                            const std::map<std::string, std::string>& config) {
  std::vector<ConfigProblem> problems;
  try {
    checkConnector(worker, config, "the REST API");
  } catch (const ConfigException& e) {
    problems = e.problems();
  }
  const auto cls = config.contains("connector.class") ? config.at("connector.class") : "";
  const auto def = definitionOf(cls, config).value_or(ConfigDef(Worker::configDef()));
  std::map<std::string, std::vector<std::string>> errors;
  for (const auto& p : problems) errors[p.key].push_back(p.reason);
  auto entry = [&](const std::string& name, const ConfigDef::Key* key) {
    std::string list;
    for (const auto& e : errors[name]) list += (list.empty() ? "" : ",") + jsonText(e);
    std::optional<std::string> value;
    if (auto it = config.find(name); it != config.end())
      value = key && key->type == ConfigDef::Type::kPassword ? "[hidden]" : it->second;
    return fmt::format(
        R"({{"definition":{},"value":{{"name":{},"value":{},"recommended_values":[],)"
        R"("errors":[{}],"visible":true}}}})",
        keyInfoJson(key ? *key : undefinedKey(name)), jsonText(name), optionalText(value), list);
  };
  std::string configs;
  for (const auto& [name, key] : def.keys())
    configs += (configs.empty() ? "" : ",") + entry(name, &key);
  for (const auto& [name, reasons] : errors)
    if (!def.find(name)) configs += (configs.empty() ? "" : ",") + entry(name, nullptr);
  return fmt::format(R"({{"name":{},"error_count":{},"groups":[],"configs":[{}]}})", jsonText(cls),
                     problems.size(), configs);
}

std::optional<std::string> pluginConfigJson(std::string_view plugin) {
  const auto def = definitionOf(plugin, {});
  if (!def) return std::nullopt;
  std::string out;
  for (const auto& [name, key] : def->keys()) out += (out.empty() ? "" : ",") + keyInfoJson(key);
  return '[' + out + ']';
}

}  // namespace ksink
