#include "source_connector_config.h"

#include <fmt/format.h>
#include <librdkafka/rdkafka.h>

#include "error_handling.h"
#include "ksink/detail/config_parse.h"
#include "rdkafka_handles.h"

namespace ksink {
namespace {

using Type = ConfigDef::Type;
using Importance = ConfigDef::Importance;

// Keys of features a source connector here does not have yet: refused by name rather than
// taken and ignored.
std::vector<ConfigProblem> unsupportedKeys(const std::map<std::string, std::string>& values) {
  std::vector<ConfigProblem> out;
  for (const auto& [key, value] : values) {
    if (key.starts_with("errors.deadletterqueue."))
      out.push_back({key,
                     "a source connector has no dead-letter queue (Kafka Connect's neither); "
                     "errors.tolerance=all with errors.log.enable=true logs what is skipped"});
  }
  return out;
}

// Exactly-once and shared-task keys that only mean something together: refused rather than
// ignored.
std::vector<ConfigProblem> exactlyOnceRules(const std::map<std::string, std::string>& values) {
  auto get = [&](const std::string& key, std::string_view fallback) {
    auto it = values.find(key);
    return it == values.end() ? std::string(fallback) : std::string(detail::trim(it->second));
  };
  std::vector<ConfigProblem> out;
  if (values.contains("group.id") && !get("offset.storage.file.filename", "").empty())
    out.push_back({"offset.storage.file.filename",
                   "the processes sharing the connector's tasks (group.id is set) resume each "
                   "other's tasks from the offsets topic: a file of one process cannot serve"});
  const bool enabled = get("exactly.once.source.support", "disabled") == "enabled";
  const std::string boundary = get("transaction.boundary", "poll");
  if (!enabled && get("exactly.once.support", "requested") == "required")
    out.push_back({"exactly.once.support",
                   "required, but the worker's exactly.once.source.support is not enabled"});
  if (!enabled && boundary != "poll" && (boundary == "interval" || boundary == "connector"))
    out.push_back({"transaction.boundary",
                   "transactions are only made with exactly.once.source.support=enabled; "
                   "without it records are delivered at least once"});
  if (values.contains("transaction.boundary.interval.ms") && boundary != "interval")
    out.push_back({"transaction.boundary.interval.ms",
                   "only applies with transaction.boundary=interval (it is " + boundary + ")"});
  if (!enabled && values.contains("offsets.storage.topic") &&
      !get("offset.storage.file.filename", "").empty())
    out.push_back({"offsets.storage.topic",
                   "the offsets are kept in offset.storage.file.filename: remove one of the two"});
  if (!enabled) return out;
  if (!get("offset.storage.file.filename", "").empty())
    out.push_back({"offset.storage.file.filename",
                   "exactly-once tasks write their offsets to the offsets topic in the "
                   "transaction of their records, never to a file: remove it (offsets kept there "
                   "are not read)"});
  for (const char* key : {"producer.transactional.id", "producer.override.transactional.id"})
    if (values.contains(key))
      out.push_back({key,
                     "exactly-once tasks' transactional ids are <group.id>-<connector>-<task>, "
                     "as Kafka Connect forms them; set group.id instead"});
  return out;
}

ConfigDef makeDef() {
  ConfigDef def;
  def.include(WorkerConfig::configDef());
  def.include(WorkerConfig::connectorKeys());
  def.include(ErrorHandling::configDef());
  def.define("offsets.storage.topic", Type::kString, "", Importance::kLow,
             "The connector's own offsets topic (KIP-618); empty: the worker's "
             "offset.storage.topic.")
      .define("exactly.once.support", Type::kString, "requested", Importance::kMedium,
              "required: refuse to start unless the worker has exactly-once enabled and the "
              "connector declares it supports it.",
              ConfigDef::oneOf({"requested", "required"}))
      .define("transaction.boundary", Type::kString, "poll", Importance::kMedium,
              "poll: a transaction per batch poll() returns; interval: per "
              "transaction.boundary.interval.ms; connector: where the task asks "
              "(TransactionContext).",
              ConfigDef::oneOf({"poll", "interval", "connector"}))
      .define("transaction.boundary.interval.ms", Type::kLong, "-1", Importance::kLow,
              "With transaction.boundary=interval: how often a transaction is committed (at the "
              "end of the first batch after it); -1: offset.flush.interval.ms.",
              [](std::string_view v) -> std::optional<std::string> {
                const auto n = detail::parseLong(v);
                if (n && (*n == -1 || *n >= 0)) return std::nullopt;
                return "must be -1 (offset.flush.interval.ms) or a number of milliseconds";
              })
      .claimPrefix("topic.creation.");  // checked by TopicCreation::parse
  def.check(unsupportedKeys);
  def.check(exactlyOnceRules);
  return def;
}

// Java producer keys librdkafka does not have: no effect here, or translated.
bool isJavaOnlyKey(std::string_view key) {
  return key == "key.serializer" || key == "value.serializer" || key == "max.block.ms" ||
         key == "buffer.memory";
}

// Under exactly-once: what transactions need of the producer (idempotence, acks=all), and a
// transaction timeout that outlasts the boundary's interval, which `out` takes.
void exactlyOnceProducer(std::map<std::string, std::string>& producer, const Config& config,
                         SourceConnectorConfig& out, std::vector<ConfigProblem>& problems) {
  auto named = [&](const std::string& key) {
    return config.get("producer.override." + key) ? "producer.override." + key : "producer." + key;
  };
  if (const auto& v = producer.at("enable.idempotence"); v != "true")
    problems.push_back(
        {named("enable.idempotence"), "exactly-once tasks need the idempotent producer (true)"});
  if (const auto& v = producer.at("acks"); v != "all" && v != "-1")
    problems.push_back({named("acks"), "exactly-once tasks need acks=all"});
  // A transaction lives as long as its boundary's interval and a batch more: the broker aborts
  // one older than transaction.timeout.ms. By default it outlasts the interval by a minute
  // (at most the broker's default transaction.max.timeout.ms, 15 minutes).
  const bool interval =
      out.transaction_boundary == SourceConnectorConfig::TransactionBoundary::kInterval;
  const int64_t least =
      interval ? std::min<int64_t>(out.transaction_boundary_interval.count() + 60000, 900000)
               : 60000;
  const auto& txn =
      producer
          .try_emplace("transaction.timeout.ms", std::to_string(std::max<int64_t>(least, 60000)))
          .first->second;
  const auto txn_ms = detail::parseLong(txn);
  if (interval && txn_ms && *txn_ms <= out.transaction_boundary_interval.count())
    problems.push_back(
        {"transaction.boundary.interval.ms",
         fmt::format("a transaction stays open at least this long: it must be shorter than "
                     "producer.transaction.timeout.ms ({} ms), or the broker aborts it",
                     *txn_ms)});
  producer.try_emplace("message.timeout.ms", txn);
  const auto message_ms = detail::parseLong(producer.at("message.timeout.ms"));
  if (!txn_ms || *txn_ms < 1000)
    problems.push_back({"producer.transaction.timeout.ms", "must be at least 1000 ms"});
  else if (!message_ms || *message_ms <= 0 || *message_ms > *txn_ms)
    problems.push_back({"producer.message.timeout.ms",
                        fmt::format("must be between 1 and transaction.timeout.ms ({} ms) "
                                    "under exactly-once",
                                    *txn_ms)});
  else
    out.transaction_timeout = std::chrono::milliseconds(*txn_ms);
}

// Connect's producer settings first (Worker.baseProducerConfigs), the user's on top; each tried
// on a scratch librdkafka conf, which is the authority on its names and values.
void producerProperties(const Config& config, SourceConnectorConfig& out,
                        std::vector<ConfigProblem>& problems) {
  auto producer = WorkerConfig::producerProperties(config);
  if (auto it = producer.find("buffer.memory"); it != producer.end()) {
    const auto bytes = detail::parseLong(it->second);
    if (!bytes || *bytes < 1024)
      problems.push_back({"producer.buffer.memory", "must be a number of bytes, at least 1024"});
    else
      producer.try_emplace("queue.buffering.max.kbytes", std::to_string(*bytes / 1024));
  }
  producer.try_emplace("acks", "all");
  producer.try_emplace("enable.idempotence", "true");
  producer.try_emplace("partitioner", "murmur2_random");
  if (out.exactly_once) exactlyOnceProducer(producer, config, out, problems);
  producer.try_emplace("message.timeout.ms", "0");  // Connect: delivery.timeout.ms=MAX
  producer.try_emplace("queue.buffering.max.kbytes", "4096");
  producer.try_emplace("client.id", "connector-producer-" + out.worker.name);
  ConfHandle scratch(rd_kafka_conf_new());
  char errstr[512];
  for (const auto& [key, value] : producer) {
    if (isJavaOnlyKey(key)) continue;
    if (rd_kafka_conf_set(scratch.get(), key.c_str(), value.c_str(), errstr, sizeof errstr) !=
        RD_KAFKA_CONF_OK) {
      const bool override_key = config.get("producer.override." + key).has_value();
      problems.push_back({(override_key ? "producer.override." : "producer.") + key, errstr});
      continue;
    }
    out.producer_properties.emplace(key, value);
  }
}

}  // namespace

const ConfigDef& SourceConnectorConfig::configDef() {
  static const ConfigDef def = makeDef();
  return def;
}

SourceConnectorConfig SourceConnectorConfig::parse(const Config& raw,
                                                   const ConfigDef& source_keys) {
  ConfigDef def = configDef();
  def.include(raw.definitions()).include(source_keys);
  std::vector<ConfigProblem> problems = def.validate(raw.values());
  const Config config(raw.values());
  auto value = [&](std::string_view key) { return def.valueOf(config.values(), key); };

  SourceConnectorConfig out;
  out.worker = WorkerConfig::parse(config);
  out.errors = ErrorHandling::parse(config.values());
  out.offsets_topic_partitions =
      static_cast<int>(detail::parseLong(value("offset.storage.partitions")).value_or(25));
  out.offsets_topic_replication_factor =
      static_cast<int>(detail::parseLong(value("offset.storage.replication.factor")).value_or(3));
  out.offsets_file = std::string(detail::trim(value("offset.storage.file.filename")));
  out.worker_offsets_topic = out.offsets_topic = value("offset.storage.topic");
  if (auto own = std::string(detail::trim(value("offsets.storage.topic"))); !own.empty())
    out.offsets_topic = own;
  out.exactly_once = value("exactly.once.source.support") == "enabled";
  out.exactly_once_required = value("exactly.once.support") == "required";
  const auto boundary = value("transaction.boundary");
  using Boundary = TransactionBoundary;
  out.transaction_boundary = boundary == "interval"    ? Boundary::kInterval
                             : boundary == "connector" ? Boundary::kConnector
                                                       : Boundary::kPoll;
  const auto interval = detail::parseLong(value("transaction.boundary.interval.ms")).value_or(-1);
  out.transaction_boundary_interval =
      interval < 0 ? out.worker.offset_flush_interval : std::chrono::milliseconds(interval);
  out.transactional_id_prefix = fmt::format("{}-{}-", value("group.id"), out.worker.name);
  out.shared_tasks = tasksShared(config, false);
  out.topic_creation = TopicCreation::parse(config.values(), problems);
  out.client_properties = WorkerConfig::clientProperties(config);
  producerProperties(config, out, problems);
  if (out.shared_tasks) {
    out.task_group = taskGroupName(value("group.id"), out.worker.name);
    out.membership_properties = membershipProperties(config, out.task_group, out.worker.name,
                                                     out.client_properties, problems);
  }
  if (!problems.empty()) throw ConfigException(std::move(problems));
  return out;
}

SharedTasks SourceConnectorConfig::sharedTasks() const {
  SharedTasks out;
  out.worker = worker;
  out.task_group = task_group;
  out.client_properties = client_properties;
  out.membership_properties = membership_properties;
  out.replication_factor = offsets_topic_replication_factor;
  out.transaction_timeout = transaction_timeout;
  out.exactly_once = exactly_once;
  out.transactional_id_prefix = transactional_id_prefix;
  return out;
}

}  // namespace ksink
