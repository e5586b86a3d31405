#include "ksink/cli.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <thread>
#include <vector>

#include "config_providers.h"
#include "connector_offsets.h"
#include "group_offsets.h"
#include "ksink/config.h"
#include "ksink/connector_registry.h"
#include "ksink/detail/config_parse.h"
#include "ksink/worker.h"
#include "offset_stores.h"
#include "plugin_loader.h"
#include "sink_connector_config.h"
#include "source_connector_config.h"
#include "source_offsets.h"
#include "status_server.h"
#include "unknown_keys.h"
#include "worker_config.h"

namespace ksink {
namespace {

constexpr int kExitFailed = 1;
constexpr int kExitBadConfig = 2;

struct Connector {
  std::string file;
  Config config;
  // Exactly one of the two.
  const ConnectorRegistry::SinkEntry* sink = nullptr;
  const ConnectorRegistry::SourceEntry* source = nullptr;
  std::vector<std::string> warnings;  // keys ksink knows nothing of, ignored

  const std::string& className() const { return sink ? sink->name : source->name; }
  std::unique_ptr<Worker> makeWorker() const {
    return sink ? std::make_unique<Worker>(config, sink->factory)
                : std::make_unique<Worker>(config, source->factory, source->capabilities);
  }
  std::chrono::milliseconds gracefulTimeout() const {
    return WorkerConfig::parse(config).shutdown_graceful_timeout;
  }
};

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

// Worker properties first, the connector's on top (Connect standalone keeps them apart; one
// merged view is what a task sees here). `worker` is readWorker()'s: its references resolved,
// its config.providers kept, which resolve the connector file's.
Connector loadConnector(const std::map<std::string, std::string>& worker, const std::string& file) {
  auto values = worker;
  const auto own = ConfigProviders::fromWorker(worker).resolve(Config::readProperties(file));
  for (auto& [k, v] : own) values.insert_or_assign(k, v);
  auto cls = values.contains("connector.class") ? values.at("connector.class") : "";
  const auto& registry = ConnectorRegistry::global();
  Connector out;
  out.file = file;
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
  ConfigDef def = out.sink ? Worker::configDef() : Worker::sourceConfigDef();
  def.include(keys);
  auto unknown = findUnknownKeys(def, values);
  problems.insert(problems.end(), unknown.misspelt.begin(), unknown.misspelt.end());
  if (!problems.empty()) throw ConfigException(std::move(problems));
  out.config = Config(std::move(values), std::move(def));
  out.warnings = std::move(unknown.ignored);
  return out;
}

// Two connectors of one name would share a consumer group (and a sink's stored offsets), each
// taking the other's partitions: Connect refuses the second, and so does ksink.
void requireUniqueName(std::set<std::string>& names, const Connector& connector) {
  const auto name = connector.config.getString("name");
  if (!names.insert(name).second)
    throw ConfigException({{"name", fmt::format("'{}' is the name of an earlier connector of this "
                                                "process ({} names it again)",
                                                name, connector.file)}});
}

// The worker file: log level and plugins take effect before any connector is read.
std::map<std::string, std::string> readWorker(const std::string& file) {
  const auto raw = Config::readProperties(file);
  auto props = ConfigProviders::fromWorker(raw).resolve(raw);
  if (auto it = props.find("log.level"); it != props.end()) {
    const auto level = spdlog::level::from_str(it->second);
    if (level == spdlog::level::off && it->second != "off")
      throw ConfigException({{"log.level", fmt::format("unknown level '{}' (trace, debug, info, "
                                                       "warn, error, critical, off)",
                                                       it->second)}});
    spdlog::set_level(level);
  }
  static bool plugins_loaded = false;
  if (auto it = props.find("plugin.path"); it != props.end() && !plugins_loaded) {
    loadPlugins(detail::parseList(it->second), ConnectorRegistry::global());
    plugins_loaded = true;
  }
  return props;
}

int run(const std::string& worker_file, const std::vector<std::string>& connector_files) {
  // Signals are taken by a dedicated thread (sigtimedwait), never by an async handler.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // A peer that closed its end (a schema registry's idle connection, a status client) is an
  // error on that write, not the end of the process: cpp-httplib 0.11 writes without
  // MSG_NOSIGNAL.
  std::signal(SIGPIPE, SIG_IGN);

  std::vector<std::unique_ptr<Worker>> workers;
  std::map<std::string, std::string> worker_props;
  std::chrono::milliseconds graceful_timeout{0};  // the longest of the connectors'
  try {
    worker_props = readWorker(worker_file);
    std::set<std::string> names;
    for (const auto& file : connector_files) {
      auto connector = loadConnector(worker_props, file);
      requireUniqueName(names, connector);
      for (const auto& w : connector.warnings) spdlog::warn("{}: {}", file, w);
      workers.push_back(connector.makeWorker());
      graceful_timeout = std::max(graceful_timeout, connector.gracefulTimeout());
      spdlog::info("{} connector {} ({}) from {}", connector.sink ? "sink" : "source",
                   connector.config.getString("name"), connector.className(), file);
    }
  } catch (const ConfigException& e) {
    fmt::print(stderr, "ksink: {}\n", e.what());
    return kExitBadConfig;
  }

  // /status and /metrics. A listener that cannot be bound (say, a second ksink on this machine
  // with the default port) fails the start, as Connect's REST server does: a process running
  // without the listener it was given is one nobody can see.
  std::unique_ptr<StatusServer> status_server;
  const auto listener = Config(worker_props).get("listeners").value_or("http://127.0.0.1:8083");
  if (!listener.empty()) {
    try {
      status_server = std::make_unique<StatusServer>(listener, [&workers] {
        std::vector<ConnectorStatus> out;
        for (const auto& w : workers) out.push_back(w->status());
        return out;
      });
    } catch (const std::exception& e) {
      spdlog::error("{}", e.what());
      return kExitFailed;
    }
  }

  // First signal: stop gracefully. Second: the process leaves, whatever is still running, once
  // task.shutdown.graceful.timeout.ms has passed since the first. Third: it leaves at once.
  // This thread never blocks on the workers, so it always sees the next signal.
  std::atomic<bool> done{false};
  std::thread stopper;
  std::thread signal_thread([&] {
    int received = 0;
    std::chrono::steady_clock::time_point first_signal;
    std::optional<std::chrono::steady_clock::time_point> force_at;
    const timespec tick{0, 50'000'000};
    while (!done) {
      if (force_at && std::chrono::steady_clock::now() >= *force_at) {
        spdlog::error("still stopping {} ms after the first signal; exiting now",
                      graceful_timeout.count());
        spdlog::default_logger()->flush();
        std::_Exit(kExitFailed);
      }
      const int sig = sigtimedwait(&signals, nullptr, &tick);
      if (sig < 0) continue;
      ++received;
      if (received == 1) {
        first_signal = std::chrono::steady_clock::now();
        spdlog::info(
            "signal {}: stopping gracefully (a second signal forces the exit after "
            "task.shutdown.graceful.timeout.ms={})",
            sig, graceful_timeout.count());
        stopper = std::thread([&workers] {
          for (auto& w : workers) w->stop();
        });
      } else if (received == 2) {
        force_at = first_signal + graceful_timeout;
        spdlog::warn("signal {} again: exiting at the latest {} ms after the first one", sig,
                     graceful_timeout.count());
      } else {
        spdlog::warn("signal {} a third time: exiting at once", sig);
        spdlog::default_logger()->flush();
        std::_Exit(kExitFailed);
      }
    }
  });

  std::atomic<int> exit_code{0};
  std::vector<std::thread> threads;
  for (auto& w : workers) {
    threads.emplace_back([&, worker = w.get()] {
      try {
        worker->run();
      } catch (const std::exception& e) {
        spdlog::error("connector failed: {}", e.what());
        exit_code = kExitFailed;
        // One failed connector stops the process, so a supervisor restarts it whole.
        for (auto& other : workers) other->stop();
      }
    });
  }
  for (auto& t : threads) t.join();
  done = true;
  signal_thread.join();
  if (stopper.joinable()) stopper.join();
  return exit_code;
}

int validate(const std::string& worker_file, const std::vector<std::string>& connector_files) {
  int problems = 0;
  std::map<std::string, std::string> worker_props;
  try {
    worker_props = readWorker(worker_file);
  } catch (const ConfigException& e) {
    fmt::print("{}: {}\n", worker_file, e.what());
    return kExitBadConfig;
  }
  std::set<std::string> names;
  for (const auto& file : connector_files) {
    try {
      auto connector = loadConnector(worker_props, file);
      requireUniqueName(names, connector);
      connector.makeWorker();  // validates, connects nothing
      fmt::print("{}: ok ({})\n", file, connector.className());
      for (const auto& w : connector.warnings) fmt::print("  warning: {}\n", w);
    } catch (const ConfigException& e) {
      ++problems;
      fmt::print("{}: {} problem(s)\n", file, e.problems().size());
      for (const auto& p : e.problems()) fmt::print("  {}: {}\n", p.key, p.reason);
    }
  }
  return problems == 0 ? 0 : kExitBadConfig;
}

// "topic:partition=offset" (the topic may contain ':' but not '=').
OffsetMap parseOffsetAssignments(const std::vector<std::string>& items) {
  static const std::regex form(R"((.+):(\d+)=(\d+))");
  OffsetMap out;
  for (const auto& item : items) {
    std::smatch m;
    if (!std::regex_match(item, m, form))
      throw ConfigException({{"--set", fmt::format("'{}' is not topic:partition=offset", item)}});
    out[{m[1], std::stoi(m[2])}] = std::stoll(m[3]);
  }
  return out;
}

// A source connector's offsets as Connect's GET /connectors/<name>/offsets shows them; --set takes
// its PATCH body, --reset is its DELETE.
int sourceOffsets(const Connector& connector, bool reset,
                  const std::vector<std::string>& assignments) {
  const auto settings = SourceConnectorConfig::parse(connector.config);
  const auto& name = settings.worker.name;
  const bool change = reset || !assignments.empty();
  // Only a change needs the file to itself; the list is read beside a running connector.
  auto store = openOffsetStore(
      settings, change ? FileOffsetStore::Access::kReadWrite : FileOffsetStore::Access::kRead);
  store->start();
  if (change) {
    if (!reset && assignments.size() != 1)
      throw ConfigException({{"--set", std::string("a source connector takes one JSON body, ") +
                                           R"({"offsets":[{"partition":{…},"offset":{…}},…]})"}});
    if (settings.offsets_file.empty())
      fmt::print(
          "note: nothing in the offsets topic {} shows whether a task of {} runs; one that "
          "does would overwrite this change at its next commit\n",
          settings.offsets_topic, name);
    std::optional<std::string> body;
    if (!reset) body = assignments.front();
    for (const auto& line : alterSourceOffsets(*connector.source, name, *store, body,
                                               settings.worker.offset_flush_timeout))
      fmt::print("{}\n", line);
  }
  fmt::print("{}\n", listSourceOffsets(*connector.source, name, *store));
  return 0;
}

int offsets(const std::string& worker_file, const std::string& connector_file, bool reset,
            const std::vector<std::string>& assignments) {
  try {
    const auto connector = loadConnector(readWorker(worker_file), connector_file);
    if (connector.source) return sourceOffsets(connector, reset, assignments);
    const auto settings = SinkConnectorConfig::parse(connector.config);
    if (reset || !assignments.empty()) {
      std::optional<OffsetMap> target;
      if (!reset) target = parseOffsetAssignments(assignments);
      auto group = brokerGroup(settings);
      for (const auto& line :
           alterConnectorOffsets(connector.config, *connector.sink, target, *group))
        fmt::print("{}\n", line);
    }
    fmt::print("group {}\n{:<40} {:>9} {:>12} {:>12} {:>10}\n", settings.group_id, "topic",
               "partition", "committed", "end", "lag");
    for (const auto& row : readGroupOffsets(settings)) {
      fmt::print("{:<40} {:>9} {:>12} {:>12} {:>10}\n", row.tp.topic, row.tp.partition,
                 row.committed ? std::to_string(*row.committed) : "-", row.end,
                 row.end - row.committed.value_or(0));
    }
    return 0;
  } catch (const ConfigException& e) {
    fmt::print(stderr, "ksink: {}\n", e.what());
    return kExitBadConfig;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ksink: {}\n", e.what());
    return kExitFailed;
  }
}

}  // namespace

int runCli(int argc, char** argv) {
  CLI::App app{"ksink: Kafka Connect's connectors without a JVM"};
  app.require_subcommand(1);
  std::string worker_file;
  std::vector<std::string> connector_files;

  auto* run_cmd = app.add_subcommand(
      "run", "Run connectors, Kafka Connect standalone style, until SIGTERM/SIGINT");
  run_cmd->add_option("worker", worker_file, "worker .properties file")
      ->required()
      ->check(CLI::ExistingFile);
  run_cmd->add_option("connectors", connector_files, "connector .properties file(s)")
      ->required()
      ->check(CLI::ExistingFile);

  auto* validate_cmd = app.add_subcommand(
      "validate", "Check configurations against every declared key; print all problems");
  validate_cmd->add_option("worker", worker_file, "worker .properties file")
      ->required()
      ->check(CLI::ExistingFile);
  validate_cmd->add_option("connectors", connector_files, "connector .properties file(s)")
      ->required()
      ->check(CLI::ExistingFile);

  std::string offsets_connector;
  auto* offsets_cmd = app.add_subcommand(
      "offsets",
      "Show a connector's offsets: a sink's consumer group (committed, end, lag); a source's "
      "stored offsets, as Kafka Connect's GET /connectors/<name>/offsets");
  offsets_cmd->add_option("worker", worker_file, "worker .properties file")
      ->required()
      ->check(CLI::ExistingFile);
  offsets_cmd->add_option("connector", offsets_connector, "connector .properties file")
      ->required()
      ->check(CLI::ExistingFile);
  bool offsets_reset = false;
  std::vector<std::string> offsets_set;
  auto* reset_flag = offsets_cmd->add_flag(
      "--reset", offsets_reset,
      "Forget the connector's offsets: a sink's group's and stored ones, a source's stored ones "
      "(the connector must be stopped)");
  offsets_cmd
      ->add_option(
          "--set", offsets_set,
          "A sink: topic:partition=offset to commit, in the group and the sink's stored offsets. "
          "A source: Kafka Connect's PATCH body {\"offsets\":[{\"partition\":{…},\"offset\":{…}}]} "
          "(a null offset resets that partition). The connector must be stopped")
      ->excludes(reset_flag);

  auto* version_cmd = app.add_subcommand("version", "Print the version");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitBadConfig;
  }
  if (*run_cmd) return run(worker_file, connector_files);
  if (*validate_cmd) return validate(worker_file, connector_files);
  if (*offsets_cmd) return offsets(worker_file, offsets_connector, offsets_reset, offsets_set);
  if (*version_cmd) {
    fmt::print("ksink {}\n", KSINK_VERSION);
    return 0;
  }
  return kExitBadConfig;
}

}  // namespace ksink
