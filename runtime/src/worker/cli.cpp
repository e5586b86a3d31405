#include "ksink/cli.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <thread>
#include <vector>

#include "cli_exit_codes.h"
#include "config_topic.h"
#include "connector_file.h"
#include "herder.h"
#include "ksink/config.h"
#include "ksink/detail/config_parse.h"
#include "ksink/worker.h"
#include "log_format.h"
#include "offsets_command.h"
#include "rest_api.h"
#include "service_notifier.h"
#include "signal_watch.h"
#include "status_server.h"
#include "status_topic.h"
#include "topic_admin.h"
#include "worker_config.h"
#include "worker_identity.h"

namespace ksink {
namespace {

// The worker file and connectors of `ksink run`, read and checked: throws ConfigException.
struct Connectors {
  std::map<std::string, std::string> worker_properties;
  // A cluster's (config.storage.topic set): the connector files, created in the config topic when
  // it does not hold them yet.
  std::vector<ConnectorFile> seeds;
  std::unique_ptr<Herder> herder;
  // A cluster's config topic; declared after the herder, so it stops (its reader applies to the
  // herder) before the herder goes.
  std::unique_ptr<ConfigTopic> config_topic;
  std::unique_ptr<StatusTopic> status_topic;      // a cluster's, when status.storage.topic is set
  std::chrono::milliseconds graceful_timeout{0};  // the longest of the connectors'
};

Connectors loadConnectors(const std::string& worker_file,
                          const std::vector<std::string>& connector_files) {
  Connectors out;
  out.worker_properties = readWorker(worker_file);
  // Kafka Connect's way unless the worker file asks for the process to exit: a failed task stays
  // FAILED while the rest run on (every connector's Worker reads the key from the worker's keys).
  out.worker_properties.try_emplace("exit.on.task.failure", "false");
  const auto topic = out.worker_properties.find("config.storage.topic");
  const bool cluster = topic != out.worker_properties.end() && !topic->second.empty();
  if (cluster && out.worker_properties.contains("state.dir"))
    throw ConfigException(
        {{"state.dir", std::string("not used with config.storage.topic: the "
                                   "config topic keeps the cluster's connectors")}});
  out.herder = std::make_unique<Herder>(
      detail::parseBoolean(out.worker_properties.at("exit.on.task.failure")).value_or(false),
      [worker = out.worker_properties](const std::map<std::string, std::string>& submitted) {
        auto connector = checkConnector(worker, submitted, "the REST API");
        for (const auto& w : connector.warnings)
          spdlog::warn("connector {}: {}", connector.config.getString("name"), w);
        return connector;
      },
      out.worker_properties.contains("state.dir") ? out.worker_properties.at("state.dir") : "");
  std::set<std::string> names;
  for (const auto& file : connector_files) {
    auto connector = checkConnector(out.worker_properties, Config::readProperties(file), file);
    requireUniqueName(names, connector);
    for (const auto& w : connector.warnings) spdlog::warn("{}: {}", file, w);
    out.graceful_timeout = std::max(out.graceful_timeout, connector.gracefulTimeout());
    spdlog::info("{} connector {} ({}) from {}", connector.sink ? "sink" : "source",
                 connector.config.getString("name"), connector.className(), file);
    if (cluster)
      out.seeds.push_back(std::move(connector));
    else
      out.herder->add(std::move(connector));
  }
  if (cluster) {
    const Config worker(out.worker_properties, WorkerConfig::configDef());
    out.config_topic =
        std::make_unique<ConfigTopic>(WorkerConfig::clientProperties(worker), topic->second,
                                      worker.getInt("config.storage.replication.factor"));
    out.herder->useConfigTopic(out.config_topic.get());
    if (const auto status = worker.getString("status.storage.topic"); !status.empty()) {
      out.status_topic =
          std::make_unique<StatusTopic>(WorkerConfig::clientProperties(worker), status,
                                        worker.getInt("status.storage.partitions"),
                                        worker.getInt("status.storage.replication.factor"));
      out.herder->useStatusTopic(out.status_topic.get());
    }
  } else {
    out.herder->restore();  // what the REST API changed before the last stop
  }
  return out;
}

// Joins the cluster's config topic and starts the herder: the topic's connectors run here from
// then on (read before the herder starts: /health answers 200 only once they are known), and the
// connector files it does not hold yet are created in it.
void startInCluster(Connectors& connectors, const std::string& worker_id) {
  auto& herder = *connectors.herder;
  if (connectors.status_topic) connectors.status_topic->start();
  connectors.config_topic->start([&herder](const ConfigRecord& record) { herder.apply(record); });
  herder.start();
  if (connectors.status_topic)
    connectors.status_topic->publish([&herder] { return herder.statusRecords(); }, worker_id);
  const auto known = herder.names();
  for (const auto& seed : connectors.seeds) {
    const auto name = seed.config.getString("name");
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    spdlog::info("connector {}: created in the config topic from its file", name);
    herder.putConfig(name, seed.submitted);
  }
}

// The Kafka cluster's id for GET /, asked with the worker's client settings.
std::function<std::optional<std::string>()> clusterIdOf(
    const std::map<std::string, std::string>& worker_properties) {
  return [properties = WorkerConfig::producerProperties(Config(worker_properties))] {
    try {
      return clusterId(properties, std::chrono::seconds(5));
    } catch (const std::exception& e) {
      spdlog::warn("cannot read the Kafka cluster's id: {}", e.what());
      return std::optional<std::string>();
    }
  };
}

int run(const std::string& worker_file, const std::vector<std::string>& connector_files) {
  SignalWatch::takeSignals();  // before any thread starts
  Connectors connectors;
  try {
    connectors = loadConnectors(worker_file, connector_files);
  } catch (const ConfigException& e) {
    fmt::print(stderr, "ksink: {}\n", e.what());
    return kExitBadConfig;
  }
  auto& herder = *connectors.herder;

  // Kafka Connect's REST API, /status and /metrics. A listener that cannot be bound (say, a
  // second ksink on this machine with the default port) fails the start, as Connect's REST server
  // does: a process running without the listener it was given is one nobody can see.
  std::unique_ptr<StatusServer> status_server;
  // How the cluster's processes name this one (worker_identity.h), once the listener is bound.
  std::string worker_id = workerIdentity(connectors.worker_properties, "");
  const auto listener = listenerOf(connectors.worker_properties);
  if (!listener.empty()) {
    try {
      status_server = std::make_unique<StatusServer>(
          listener, [&herder] { return herder.statuses(); },
          [&herder, &worker = connectors.worker_properties, &worker_id,
           cluster_id = clusterIdOf(connectors.worker_properties)](httplib::Server& server,
                                                                   const std::string& bound) {
            worker_id = workerIdentity(worker, bound);
            addConnectRoutes(server, herder, {worker_id, cluster_id, worker});
          },
          listenerSecurity(connectors.worker_properties));
    } catch (const std::exception& e) {
      spdlog::error("{}", e.what());
      return kExitFailed;
    }
  }

  // Under systemd (Type=notify): READY once every connector started and the listener serves,
  // WATCHDOG while the herder answers, STOPPING at the first signal.
  ServiceNotifier notifier(
      [&herder, &status_server] {
        return (!status_server || status_server->serving()) && herder.connectorsStarted();
      },
      [&herder] {
        (void)herder.statuses();  // answers only if the herder and every Worker do (their locks)
        return herder.started();
      });
  const SignalWatch signals(connectors.graceful_timeout, [&herder, &notifier] {
    notifier.stopping();
    herder.stopAll();
  });
  if (!connectors.config_topic) {
    herder.start();
  } else {
    try {
      startInCluster(connectors, worker_id);
    } catch (const std::exception& e) {
      spdlog::error("{}", e.what());
      herder.stopAll();
      herder.wait();
      return kExitFailed;
    }
  }
  const int status = herder.wait();
  // Its tasks run nowhere now (UNASSIGNED); then stop reading, before the herder goes.
  if (connectors.status_topic) connectors.status_topic->stop();
  if (connectors.config_topic) connectors.config_topic->stop();
  return status;
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
  if (connector_files.empty()) fmt::print("{}: ok (no connector files)\n", worker_file);
  std::set<std::string> names;
  for (const auto& file : connector_files) {
    try {
      auto connector = checkConnector(worker_props, Config::readProperties(file), file);
      requireUniqueName(names, connector);
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

// The worker .properties file every command takes first.
void addWorkerFile(CLI::App* command, std::string& worker_file) {
  command->add_option("worker", worker_file, "worker .properties file")
      ->required()
      ->check(CLI::ExistingFile);
}

// The connector files, or directories of them, `run` and `validate` take after it.
void addConnectorFiles(CLI::App* command, std::vector<std::string>& files, std::string_view what) {
  command
      ->add_option("connectors", files,
                   fmt::format("connector .properties file(s), or directories of them{}", what))
      ->check(CLI::ExistingPath);
}

}  // namespace

int runCli(int argc, char** argv) {
  configureLogging({});  // stderr, tagged, until the worker file says more
  CLI::App app{"ksink: Kafka Connect's connectors without a JVM"};
  app.require_subcommand(1);
  std::string worker_file;
  std::vector<std::string> connector_files;

  auto* run_cmd = app.add_subcommand(
      "run", "Run connectors, Kafka Connect standalone style, until SIGTERM/SIGINT");
  addWorkerFile(run_cmd, worker_file);
  addConnectorFiles(run_cmd, connector_files,
                    "; in a cluster (config.storage.topic), those the config topic does not hold "
                    "yet are created in it");

  auto* validate_cmd = app.add_subcommand(
      "validate", "Check configurations against every declared key; print all problems");
  addWorkerFile(validate_cmd, worker_file);
  addConnectorFiles(validate_cmd, connector_files, " (none: the worker file alone)");

  std::string offsets_connector;
  auto* offsets_cmd = app.add_subcommand(
      "offsets",
      "Show a connector's offsets: a sink's consumer group (committed, end, lag); a source's "
      "stored offsets, as Kafka Connect's GET /connectors/<name>/offsets");
  addWorkerFile(offsets_cmd, worker_file);
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
  if (*run_cmd) return run(worker_file, connectorFiles(connector_files));
  if (*validate_cmd) return validate(worker_file, connectorFiles(connector_files));
  if (*offsets_cmd)
    return offsetsCommand(worker_file, offsets_connector, offsets_reset, offsets_set);
  if (*version_cmd) {
    fmt::print("ksink {}\n", KSINK_VERSION);
    return 0;
  }
  return kExitBadConfig;
}

}  // namespace ksink
