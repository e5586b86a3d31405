#include "worker_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "ksink/detail/config_parse.h"

namespace ksink {
namespace {

using Type = ConfigDef::Type;
using Importance = ConfigDef::Importance;

// Keys of Connect's distributed worker that have no meaning here, with what ksink does instead:
// accepted (a Connect worker file runs unchanged) and named in a warning.
constexpr const char* kGroupProtocol =
    "tasks move between processes through Kafka's consumer groups, within "
    "consumer.session.timeout.ms";
constexpr const char* kNoLeader =
    "there is no leader: every process applies the config topic's changes itself";
constexpr ConfigDef::IgnoredKey kDistributedIgnored[] = {
    {"scheduled.rebalance.max.delay.ms", kGroupProtocol},
    {"connect.protocol", kGroupProtocol},
    {"session.timeout.ms", kGroupProtocol},
    {"heartbeat.interval.ms", kGroupProtocol},
    {"rebalance.timeout.ms", kGroupProtocol},
    {"worker.sync.timeout.ms", kNoLeader},
    {"worker.unsync.backoff.ms", kNoLeader},
    {"rest.advertised.listener", kNoLeader},
    {"inter.worker.key.generation.algorithm", kNoLeader},
    {"inter.worker.key.size", kNoLeader},
    {"inter.worker.key.ttl.ms", kNoLeader},
    {"inter.worker.signature.algorithm", kNoLeader},
    {"inter.worker.verification.algorithms", kNoLeader},
    {"admin.listeners", "the /admin routes are served on listeners"},
    {"connector.client.config.override.policy",
     "every connector's consumer.override.* and producer.override.* keys are taken (Connect's "
     "All policy)"},
    {"metric.reporters", "metrics are served in Prometheus text at /metrics"},
    {"auto.include.jmx.reporter", "metrics are served in Prometheus text at /metrics"},
};

// A topic's replication factor when ksink creates it: -1 is the broker's default.
std::optional<std::string> replicationFactor(std::string_view v) {
  const auto n = detail::parseLong(v);
  if (n && (*n == -1 || *n >= 1)) return std::nullopt;
  return "must be -1 (the broker's default) or at least 1";
}

// How ksink creates Connect's `kind` storage topic (offset, config, status) when it is missing:
// <kind>.storage.partitions (none for the config topic, which has one) and
// <kind>.storage.replication.factor.
void defineStorageTopicCreation(ConfigDef& def, std::string_view kind,
                                std::optional<std::string> partitions) {
  if (partitions)
    def.define(fmt::format("{}.storage.partitions", kind), Type::kInt, std::move(partitions),
               Importance::kLow,
               fmt::format("Connect's: partitions of the {} topic when ksink creates it.", kind),
               ConfigDef::atLeast(1));
  def.define(
      fmt::format("{}.storage.replication.factor", kind), Type::kInt, "3", Importance::kLow,
      fmt::format("Connect's: replication factor of the {} topic when ksink creates it; -1: the "
                  "broker's default.",
                  kind),
      replicationFactor);
}

ConfigDef makeWorkerDef() {
  ConfigDef def;
  def.define("bootstrap.servers", Type::kString, std::nullopt, Importance::kHigh,
             "Kafka brokers, host:port[,host:port...].", ConfigDef::nonEmpty())
      .define("offset.flush.interval.ms", Type::kLong, "60000", Importance::kLow,
              "Interval between offset commit cycles.", ConfigDef::atLeast(0))
      .define("offset.flush.timeout.ms", Type::kLong, "5000", Importance::kLow,
              "Longest wait for an offset commit before it counts as failed.",
              ConfigDef::atLeast(1))
      .define("task.shutdown.graceful.timeout.ms", Type::kLong, "5000", Importance::kLow,
              "Bound on a graceful stop: the final commit and the task's teardown.",
              ConfigDef::atLeast(0))
      .define("task.stall.intervals", Type::kInt, "3", Importance::kLow,
              "ksink's: a task that has work and makes no progress for this many "
              "offset.flush.interval.ms (at least a second each) is shown stalled in /status and "
              "/metrics (ksink_task_stalled): a sink with records beyond its committed offsets "
              "and no commit, a source whose poll() has not returned.",
              ConfigDef::atLeast(1))
      .define("topic.tracking.enable", Type::kBoolean, "true", Importance::kLow,
              "Connect's: the topics each connector uses are served at "
              "GET /connectors/{c}/topics (403 when false).")
      .define("topic.tracking.allow.reset", Type::kBoolean, "true", Importance::kLow,
              "Connect's: PUT /connectors/{c}/topics/reset is served (403 when false).")
      .define("listeners", Type::kString, "http://127.0.0.1:8083", Importance::kLow,
              "HTTP listener for /metrics and /status (ksink run); empty turns it off.")
      .define("plugin.path", Type::kList, "", Importance::kLow,
              "Directories of connector plugins (shared libraries) loaded by ksink.")
      .define("config.providers", Type::kList, "", Importance::kLow,
              "Configuration providers (env, file, directory) whose ${provider:[path:]key} "
              "references the worker and connector files may hold; each declared with "
              "config.providers.<name>.class.")
      .define("exit.on.task.failure", Type::kBoolean, "true", Importance::kMedium,
              "true: a task that fails stops its connector's other tasks and Worker::run() "
              "rethrows its failure (under ksink run: every connector stops and the process "
              "exits 1, for a supervisor to restart it whole). false, Kafka Connect's way and "
              "ksink run's default: the task stays FAILED in the status, the others run on, and "
              "a restart (REST) brings it back.")
      // The worker's keys for its source connectors (source/source_connector_config.h).
      .define("offset.storage.file.filename", Type::kString, "", Importance::kHigh,
              "Kafka Connect standalone's offsets file; when set, source offsets are kept there "
              "(written atomically) instead of the offsets topic.")
      .define("offset.storage.topic", Type::kString, "connect-offsets", Importance::kHigh,
              "Compacted topic of source offsets (Kafka Connect's format), created if missing.",
              ConfigDef::nonEmpty())
      .define("exactly.once.source.support", Type::kString, "disabled", Importance::kHigh,
              "enabled: every source task produces in transactions that carry its offsets "
              "(KIP-618). Connect's `preparing` (a rolling upgrade step of a distributed cluster) "
              "has no use here: each task fences its predecessors when it starts.",
              [](std::string_view v) -> std::optional<std::string> {
                if (v == "disabled" || v == "enabled") return std::nullopt;
                if (v == "preparing")
                  return "ksink has no preparing step: a task's producer fences the older ones "
                         "with its id when it starts; use enabled";
                return "must be one of: disabled, enabled";
              })
      .define("group.id", Type::kString, "connect-cluster", Importance::kMedium,
              "The worker group's name, Kafka Connect distributed's group.id. Exactly-once "
              "tasks' transactional ids are <group.id>-<connector>-<task>; when set, the "
              "processes running the connector share its tasks through the consumer group "
              "<group.id>-<connector>-tasks.",
              ConfigDef::nonEmpty())
      .define("topic.creation.enable", Type::kBoolean, "true", Importance::kLow,
              "Whether source connectors may create topics (KIP-158).")
      .define("config.storage.topic", Type::kString, "", Importance::kHigh,
              "Connect distributed's: the config topic of a cluster of processes (one "
              "partition, compacted; created if missing). Set, the connectors are those it holds, "
              "in Connect's record formats, managed through the REST API of any process; the "
              "connector files given are created in it when it does not hold them yet.")
      .define("rest.advertised.host.name", Type::kString, "", Importance::kLow,
              "Connect distributed's: the host this process names itself by to the others (the "
              "status topic's worker_id, where a task restart is forwarded). Empty: the "
              "listener's host, or the machine's host name for a wildcard address.")
      .define("rest.advertised.port", Type::kString, "", Importance::kLow,
              "Connect distributed's: the port it names itself by. Empty: the listener's.",
              [](std::string_view v) -> std::optional<std::string> {
                if (v.empty() || detail::parseLong(v).value_or(0) > 0) return std::nullopt;
                return "a port number";
              })
      .define("status.storage.topic", Type::kString, "", Importance::kHigh,
              "Connect distributed's, with config.storage.topic: the status topic (compacted; "
              "created if missing), where each process writes the states of the connectors and "
              "tasks it runs in Connect's record format, and reads the others': the REST API of "
              "any process shows the tasks a connector's processes share wherever they run. "
              "Empty: each process shows the tasks it runs.")
      .define("state.dir", Type::kString, "", Importance::kMedium,
              "Directory where ksink run keeps the connectors created, changed, paused, stopped "
              "or deleted through the REST API, so that a restart keeps them (Kafka Connect's "
              "standalone worker forgets them). Empty: not kept.")
      .define("log.level", Type::kString, "info", Importance::kLow,
              "trace, debug, info, warn, error, critical or off.",
              ConfigDef::oneOf({"trace", "debug", "info", "warn", "error", "critical", "off"}))
      .define("log.format", Type::kString, "text", Importance::kLow,
              "ksink's: text (spdlog's lines, tagged [connector|task-N] as Connect tags them) or "
              "json (one object a line: time, level, logger, message, connector, task); both to "
              "stderr.",
              ConfigDef::oneOf({"text", "json"}));
  defineStorageTopicCreation(def, "offset", "25");
  defineStorageTopicCreation(def, "config", std::nullopt);
  defineStorageTopicCreation(def, "status", "5");
  // The REST listener's TLS (read by the listener: worker/listener_security.h), named as Connect
  // names them; without any of them, the worker's own ssl.* apply to the listener.
  for (const char* key : {"ssl.keystore.location", "ssl.keystore.type", "ssl.keystore.password",
                          "ssl.key.password", "ssl.client.auth", "ssl.truststore.location",
                          "ssl.truststore.type", "ssl.truststore.password"})
    def.define(fmt::format("listeners.https.{}", key),
               std::string_view(key).ends_with("password") ? Type::kPassword : Type::kString, "",
               Importance::kMedium,
               fmt::format("Connect's: {} of an https:// listener (PEM or PKCS12 stores; "
                           "ssl.client.auth none, requested or required)",
                           key));
  def.define("rest.extension.classes", Type::kList, "", Importance::kLow,
             "Connect's: only its BasicAuthSecurityRestExtension is served (with "
             "rest.basic.auth.credentials.file)")
      .define("rest.basic.auth.credentials.file", Type::kString, "", Importance::kMedium,
              "ksink's: a properties file of user=password lines (Connect's "
              "PropertyFileLoginModule's file): every REST, /status and /metrics request must "
              "carry one of them (HTTP basic authentication)");
  def.defineIgnored(kDistributedIgnored, "Kafka Connect distributed worker");
  // Passed to the clients, which check them.
  def.claimPrefix("config.providers.")  // checked by ConfigProviders
      .claimPrefix("consumer.")
      .claimPrefix("producer.")
      .claimPrefix("security.protocol")
      .claimPrefix("ssl.")
      .claimPrefix("sasl.");
  return def;
}

ConfigDef makeConnectorDef() {
  ConfigDef def;
  def.define("name", Type::kString, std::nullopt, Importance::kHigh,
             "Connector name (a sink's consumer group is connect-<name>; a source's offsets are "
             "stored under it).",
             ConfigDef::nonEmpty())
      .define("connector.class", Type::kString, "", Importance::kHigh,
              "Which connector to run (a built-in name or one registered by a plugin).")
      .define("tasks.max", Type::kInt, "1", Importance::kHigh,
              "Number of tasks run by this process.", ConfigDef::atLeast(1))
      .define("errors.restart.max.attempts", Type::kInt, "0", Importance::kLow,
              "ksink's: restarts of a failed task within errors.restart.window.ms before it stays "
              "FAILED (with exit.on.task.failure=false); 0, the default, restarts none, as "
              "Connect.",
              ConfigDef::atLeast(0))
      .define("errors.restart.backoff.ms", Type::kLong, "1000", Importance::kLow,
              "ksink's: the wait before a failed task's first restart; each next one within the "
              "window waits twice as long.",
              ConfigDef::atLeast(0))
      .define("errors.restart.window.ms", Type::kLong, "600000", Importance::kLow,
              "ksink's: the window errors.restart.max.attempts counts restarts in.",
              ConfigDef::atLeast(1));
  return def;
}

}  // namespace

const ConfigDef& WorkerConfig::configDef() {
  static const ConfigDef def = makeWorkerDef();
  return def;
}

const ConfigDef& WorkerConfig::connectorKeys() {
  static const ConfigDef def = makeConnectorDef();
  return def;
}

WorkerConfig WorkerConfig::parse(const Config& config) {
  // The Config's own definitions' default first (a connector may redefine a worker key's).
  auto value = [&](std::string_view key, const ConfigDef& def) {
    return config.get(key).value_or(def.valueOf(config.values(), key));
  };
  auto millis = [&](std::string_view key, const ConfigDef& def = configDef()) {
    return std::chrono::milliseconds(detail::parseLong(value(key, def)).value_or(0));
  };
  WorkerConfig out;
  out.name = value("name", connectorKeys());
  out.connector_class = value("connector.class", connectorKeys());
  out.tasks_max =
      static_cast<int>(detail::parseLong(value("tasks.max", connectorKeys())).value_or(1));
  out.restart_max_attempts = static_cast<int>(
      detail::parseLong(value("errors.restart.max.attempts", connectorKeys())).value_or(0));
  out.restart_backoff = millis("errors.restart.backoff.ms", connectorKeys());
  out.restart_window = millis("errors.restart.window.ms", connectorKeys());
  out.bootstrap_servers = value("bootstrap.servers", configDef());
  out.offset_flush_interval = millis("offset.flush.interval.ms");
  out.offset_flush_timeout = millis("offset.flush.timeout.ms");
  out.shutdown_graceful_timeout = millis("task.shutdown.graceful.timeout.ms");
  out.stall_after = std::max(out.offset_flush_interval, std::chrono::milliseconds(1000)) *
                    detail::parseLong(value("task.stall.intervals", configDef())).value_or(3);
  out.exit_on_task_failure =
      detail::parseBoolean(value("exit.on.task.failure", configDef())).value_or(true);
  return out;
}

std::map<std::string, std::string> WorkerConfig::clientProperties(const Config& config) {
  std::map<std::string, std::string> out;
  out["bootstrap.servers"] = config.get("bootstrap.servers").value_or("");
  for (const auto& [key, value] : config.values())
    if (detail::isClientSecurityKey(key)) out[key] = value;
  return out;
}

std::map<std::string, std::string> WorkerConfig::producerProperties(const Config& config) {
  auto out = clientProperties(config);
  for (const auto& [key, value] : config.withPrefix("producer."))
    if (!key.starts_with("override.")) out[key] = value;
  for (const auto& [key, value] : config.withPrefix("producer.override.")) out[key] = value;
  return out;
}

}  // namespace ksink
