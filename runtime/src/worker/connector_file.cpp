#include "connector_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>

#include "config_providers.h"
#include "ksink/detail/config_parse.h"
#include "log_format.h"
#include "plugin_loader.h"
#include "sink_connector_config.h"
#include "sink_record_conversion.h"
#include "source_connector_config.h"
#include "status_server.h"
#include "unknown_keys.h"
#include "worker_config.h"

namespace ksink {

std::unique_ptr<Worker> ConnectorFile::makeWorker() const {
  return sink ? std::make_unique<Worker>(config, sink->factory)
              : std::make_unique<Worker>(config, source->factory, source->capabilities);
}

std::chrono::milliseconds ConnectorFile::gracefulTimeout() const {
  return WorkerConfig::parse(config).shutdown_graceful_timeout;
}

namespace {

// Adds to `problems` those of `more` it does not hold yet (two checks of one key say it once).
void addProblems(std::vector<ConfigProblem>& problems, const std::vector<ConfigProblem>& more) {
  for (const auto& p : more)
    if (std::ranges::none_of(problems, [&](const ConfigProblem& q) {
          return q.key == p.key && q.reason == p.reason;
        }))
      problems.push_back(p);
}

// A URL's scheme ("jdbc:mysql:…", "postgresql:…"), never the rest, which may hold a password;
// "…" for text that is not a URL (whose first colon may follow a user name).
std::string urlScheme(std::string_view url) {
  const size_t jdbc = url.starts_with("jdbc:") ? 5 : 0;
  const auto colon = url.find(':', jdbc);
  if (colon == std::string_view::npos || (jdbc == 0 && url.find("://") != colon)) return "…";
  return std::string(url.substr(0, colon + 1)) + "…";
}

// The runtime converts and transforms records for a sink but one whose tasks convert records
// themselves. Such a sink applies transforms= only if its own definitions declare the chain
// (otherwise its records would be written untransformed); for any other, the runtime serves only
// the header converters that give text. A task is made to be asked, only when it matters (never
// started).
}  // namespace

std::map<std::string, std::string> readWorker(const std::string& file) {
  const auto raw = Config::readProperties(file);
  auto props = ConfigProviders::fromWorker(raw).resolve(raw);
  configureLogging(props);  // the level and format apply to what follows
  listenerSecurity(props);  // a listener or its TLS or users refused now, not once connectors ran
  static bool plugins_loaded = false;
  if (auto it = props.find("plugin.path"); it != props.end() && !plugins_loaded) {
    loadPlugins(detail::parseList(it->second), ConnectorRegistry::global());
    plugins_loaded = true;
  }
  return props;
}

std::vector<std::string> connectorFiles(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& path : paths) {
    if (!std::filesystem::is_directory(path)) {
      out.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(path)) {
      const auto name = entry.path().filename().string();
      if (entry.is_regular_file() && !name.starts_with('.') && name.ends_with(".properties"))
        found.push_back(entry.path().string());
    }
    std::ranges::sort(found);
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

std::string listenerOf(const std::map<std::string, std::string>& worker) {
  const auto it = worker.find("listeners");
  return it == worker.end() ? "http://127.0.0.1:8083" : it->second;
}

ListenerSecurity listenerSecurity(const std::map<std::string, std::string>& worker) {
  const auto listener = listenerOf(worker);
  if (listener.empty()) return {};
  const auto parsed = StatusServer::parseListener(listener);
  if (!parsed)
    throw ConfigException({{"listeners", fmt::format("'{}' is not of the form http://host:port or "
                                                     "https://host:port (empty: no listener)",
                                                     listener)}});
  return ListenerSecurity::parse(worker, parsed->https);
}

ConnectorFile loadConnector(const std::map<std::string, std::string>& worker,
                            const std::string& file) {
  return loadConnector(worker, Config::readProperties(file), file);
}

ConnectorFile loadConnector(const std::map<std::string, std::string>& worker,
                            const std::map<std::string, std::string>& submitted,
                            const std::string& file) {
  auto values = worker;
  const auto own = ConfigProviders::fromWorker(worker).resolve(submitted);
  for (auto& [k, v] : own) values.insert_or_assign(k, v);
  auto cls = values.contains("connector.class") ? values.at("connector.class") : "";
  const auto& registry = ConnectorRegistry::global();
  ConnectorFile out;
  out.file = file;
  out.submitted = submitted;
  out.sink = registry.find(cls, values);
  if (!out.sink) out.source = registry.findSource(cls, values);
  if (!out.sink && !out.source) {
    if (const auto served = registry.claimsOf(cls); !served.empty()) {
      // A class ksink serves for some configurations only (the JDBC classes, by database).
      const auto url = values.contains("connection.url") ? values.at("connection.url") : "";
      throw ConfigException(
          {{"connection.url",
            fmt::format("{} is served here for {}; {} is none of them", cls,
                        fmt::join(served, "; "),
                        url.empty() ? "an empty connection.url"
                                    : fmt::format("a connection.url of '{}'", urlScheme(url)))}});
    }
    throw ConfigException(
        {{"connector.class",
          fmt::format("{} (known connectors: {})",
                      cls.empty() ? "is required" : "unknown connector '" + cls + "'",
                      fmt::join(registry.names(), ", "))}});
  }
  // Every problem at once: the connector's own keys, then the worker's and its kind's (which
  // include Connect's cross-key rules and librdkafka's checks of the client properties).
  const ConfigDef& keys = out.sink ? out.sink->config_def : out.source->config_def;
  if (out.sink && out.sink->adapt_config) values = out.sink->adapt_config(std::move(values));
  std::vector<ConfigProblem> problems = keys.validate(values);
  try {
    if (out.sink)
      SinkConnectorConfig::parse(Config(values), keys);
    else
      SourceConnectorConfig::parse(Config(values), keys);
  } catch (const ConfigException& e) {
    addProblems(problems, e.problems());
  }
  if (out.sink)
    addProblems(problems, SinkRecordConversion::refused(
                              values, out.sink->config_def.find("transforms") != nullptr,
                              [&] { return out.sink->factory()->convertsRecords(); }));
  ConfigDef def = out.sink ? Worker::configDef() : Worker::sourceConfigDef();
  def.include(keys);
  auto unknown = findUnknownKeys(def, values);
  problems.insert(problems.end(), unknown.misspelt.begin(), unknown.misspelt.end());
  if (!problems.empty()) throw ConfigException(std::move(problems));
  out.config = Config(std::move(values), std::move(def));
  out.warnings = std::move(unknown.ignored);
  // The Connect worker keys with no meaning here, with what ksink does instead (a sink's own such
  // keys are named by the sink when its task starts).
  for (auto& line : WorkerConfig::configDef().ignoredIn(out.config.values()))
    out.warnings.push_back(std::move(line));
  return out;
}

ConnectorFile checkConnector(const std::map<std::string, std::string>& worker,
                             const std::map<std::string, std::string>& own,
                             const std::string& origin) {
  auto connector = loadConnector(worker, own, origin);
  connector.makeWorker();
  return connector;
}

void requireUniqueName(std::set<std::string>& names, const ConnectorFile& connector) {
  const auto name = connector.config.getString("name");
  if (!names.insert(name).second)
    throw ConfigException({{"name", fmt::format("'{}' is the name of an earlier connector of this "
                                                "process ({} names it again)",
                                                name, connector.file)}});
}

}  // namespace ksink
