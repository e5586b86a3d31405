#include "sink_connector_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <regex>

#include "ksink/detail/config_parse.h"
#include "ksink/transformation_chain.h"
#include "rdkafka_handles.h"
#include "sink_record_conversion.h"
#include "worker_config.h"

namespace ksink {
namespace {

using Type = ConfigDef::Type;
using Importance = ConfigDef::Importance;

// The sink connector's own keys (Connect's SinkConnectorConfig), on top of the worker's and those
// every connector has.
ConfigDef makeDef() {
  ConfigDef def;
  def.include(WorkerConfig::configDef());
  def.include(WorkerConfig::connectorKeys());
  def.define("topics", Type::kList, "", Importance::kHigh,
             "Comma-separated topics to consume. Exactly one of topics / topics.regex.")
      .define("topics.regex", Type::kString, "", Importance::kHigh,
              "Regular expression of topics to consume (ECMAScript syntax, as librdkafka's).")
      .define("errors.retry.timeout", Type::kLong, "0", Importance::kMedium,
              "How long a retriable failure is retried (ms); -1 retries forever. A record's "
              "conversion: 0 means no retry (Connect's default). put(): 0 means retry forever "
              "as Connect does.",
              ConfigDef::atLeast(-1))
      .define("errors.retry.delay.max.ms", Type::kLong, "60000", Importance::kMedium,
              "Cap of the exponential backoff between retries (starts at 300 ms).",
              ConfigDef::atLeast(0))
      // Not Connect's 500: a put() takes what is already fetched, up to this, without waiting, so
      // a slow topic still gets small batches; at full speed a sink writing a transaction per
      // put() pays its commit per 10000 records instead of per 500 (docs/performance.md).
      .define("consumer.max.poll.records", Type::kInt, "10000", Importance::kMedium,
              "Most records handed to one put().", ConfigDef::atLeast(1));
  def.include(ErrorsConfig::configDef());
  // The runtime converts and transforms for every sink but one that converts records itself
  // (which declares the converter and chain keys with its own definitions, replacing these).
  def.include(SinkRecordConversion::configDef());
  def.include(TransformationChain::configDef());
  return def;
}

// Java assignor class names, so a Connect config carries over unchanged.
std::optional<std::string> assignorName(std::string_view name) {
  name = detail::trim(name);
  if (name == "range" || name == "org.apache.kafka.clients.consumer.RangeAssignor") return "range";
  if (name == "roundrobin" || name == "org.apache.kafka.clients.consumer.RoundRobinAssignor")
    return "roundrobin";
  if (name == "cooperative-sticky" ||
      name == "org.apache.kafka.clients.consumer.CooperativeStickyAssignor")
    return "cooperative-sticky";
  return std::nullopt;
}

// Java consumer keys librdkafka does not have and that have no effect here.
bool isJavaOnlyKey(std::string_view key) {
  return key == "key.deserializer" || key == "value.deserializer" || key == "max.poll.records" ||
         key == "default.api.timeout.ms";
}

// Consumer properties by key, each with the configuration key it came from (for its problems).
using ConsumerProperties = std::map<std::string, std::pair<std::string, std::string>>;

// Connect's rule (SinkConnectorConfig.validate): exactly one of topics / topics.regex, a regex
// that compiles.
void checkTopics(const std::vector<std::string>& topics, const std::string& regex,
                 std::vector<ConfigProblem>& problems) {
  if (topics.empty() && regex.empty()) {
    problems.push_back({"topics", "Must configure one of topics or topics.regex"});
  } else if (!topics.empty() && !regex.empty()) {
    problems.push_back(
        {"topics.regex",
         "topics and topics.regex are mutually exclusive options, but both are set."});
  }
  if (regex.empty()) return;
  try {
    std::regex check(regex);
  } catch (const std::regex_error& e) {
    problems.push_back(
        {"topics.regex", fmt::format("is not a valid regular expression: {}", e.what())});
  }
}

// Later wins: Connect's base settings, security pass-through, worker-wide consumer.*, then the
// connector's consumer.override.*.
ConsumerProperties consumerProperties(const Config& config, const std::string& bootstrap,
                                      const std::string& name) {
  ConsumerProperties props;
  auto set = [&](const std::string& key, const std::string& v, const std::string& origin) {
    props.insert_or_assign(key, std::make_pair(v, origin));
  };
  set("bootstrap.servers", bootstrap, "bootstrap.servers");
  set("group.id", "connect-" + name, "name");
  set("client.id", "connector-consumer-" + name, "name");
  set("auto.offset.reset", "earliest", "auto.offset.reset");
  set("partition.assignment.strategy", "range", "partition.assignment.strategy");
  set("enable.partition.eof", "false", "enable.partition.eof");
  // Only committed transactions reach a sink: an aborted one's records never reach a table.
  // librdkafka's default already, unlike Connect's Java consumer (read_uncommitted); said here so
  // it stays, and a user may still choose consumer.isolation.level=read_uncommitted.
  set("isolation.level", "read_committed", "isolation.level");
  // The prefetch: a budget of bytes per task rather than librdkafka's 64 MiB / 100000 messages,
  // so a process at full speed stays small. A stopped fetcher is woken as the queue drains (see
  // fetch_waker.h), so the small budget costs no one-second stalls. One fetch response (at most
  // fetch.max.bytes) can land on top of a full queue; a batch holds copies of its records, not
  // the responses they came in.
  set("queued.max.messages.kbytes", "2048", "queued.max.messages.kbytes");
  set("queued.min.messages", "20000", "queued.min.messages");
  set("fetch.max.bytes", "2097152", "fetch.max.bytes");
  for (const auto& [key, v] : config.values())
    if (detail::isClientSecurityKey(key)) set(key, v, key);
  for (const auto& [key, v] : config.withPrefix("consumer."))
    if (!key.starts_with("override.")) set(key, v, "consumer." + key);
  for (const auto& [key, v] : config.withPrefix("consumer.override."))
    set(key, v, "consumer.override." + key);
  return props;
}

// What the worker needs of the consumer's settings: ksink's own commits, known assignment
// strategies of one kind (their names normalized in `props`), non-empty group ids.
void checkConsumerProperties(ConsumerProperties& props, SinkConnectorConfig& out,
                             std::vector<ConfigProblem>& problems) {
  if (auto it = props.find("max.poll.records"); it != props.end()) {
    auto n = detail::parseLong(it->second.first);
    if (!n || *n < 1)
      problems.push_back({it->second.second, "must be a positive integer"});
    else
      out.max_poll_records = static_cast<int>(*n);
  }
  if (auto it = props.find("default.api.timeout.ms"); it != props.end()) {
    auto n = detail::parseLong(it->second.first);
    if (!n || *n < 1)
      problems.push_back({it->second.second, "must be a positive number of milliseconds"});
    else
      out.lookup_timeout = std::chrono::milliseconds(*n);
  }
  if (auto it = props.find("enable.auto.commit");
      it != props.end() && detail::parseBoolean(it->second.first).value_or(true)) {
    problems.push_back(
        {it->second.second, "must stay false: ksink commits only what the sink confirmed"});
  }
  if (auto it = props.find("enable.auto.offset.store");
      it != props.end() && detail::parseBoolean(it->second.first).value_or(true)) {
    problems.push_back({it->second.second, "must stay false: ksink commits explicit offsets"});
  }
  auto& [strategies, origin] = props["partition.assignment.strategy"];
  std::vector<std::string> names;
  bool cooperative = false, eager = false;
  for (const auto& item : detail::parseList(strategies)) {
    auto name = assignorName(item);
    if (!name) {
      problems.push_back({origin, fmt::format("unknown assignment strategy '{}' (use range, "
                                              "roundrobin or cooperative-sticky)",
                                              item)});
      continue;
    }
    (*name == "cooperative-sticky" ? cooperative : eager) = true;
    names.push_back(*name);
  }
  if (cooperative && eager)
    problems.push_back({origin, "cannot mix eager (range, roundrobin) and cooperative-sticky"});
  strategies = fmt::format("{}", fmt::join(names, ","));
  // Kafka refuses an empty group id or instance id; an empty instance id would also become the
  // same "-<task>" in every process, which then fence each other.
  for (const char* key : {"group.id", "group.instance.id"})
    if (auto it = props.find(key); it != props.end() && detail::trim(it->second.first).empty())
      problems.push_back(
          {it->second.second, std::string_view(key) == "group.id"
                                  ? "must not be empty"
                                  : "must not be empty: name this process, or leave the key out "
                                    "to run without static membership"});
  if (auto it = props.find("group.id"); it != props.end()) out.group_id = it->second.first;
}

// librdkafka is the authority on its own property names and values: each is tried on a scratch
// conf; what it refuses is a problem, what it takes is the consumer's.
std::map<std::string, std::string> librdkafkaProperties(const ConsumerProperties& props,
                                                        std::vector<ConfigProblem>& problems) {
  std::map<std::string, std::string> out;
  ConfHandle scratch(rd_kafka_conf_new());
  char errstr[512];
  for (const auto& [key, entry] : props) {
    if (isJavaOnlyKey(key)) continue;
    if (rd_kafka_conf_set(scratch.get(), key.c_str(), entry.first.c_str(), errstr, sizeof errstr) !=
        RD_KAFKA_CONF_OK) {
      problems.push_back({entry.second, errstr});
      continue;
    }
    out.emplace(key, entry.first);
  }
  out["enable.auto.commit"] = "false";
  out["enable.auto.offset.store"] = "false";
  return out;
}

// KAFKA-9985: a DLQ the connector also consumes feeds its own failures back to it.
void refuseConsumedDlq(const std::string& dlq, const SinkConnectorConfig& out,
                       std::vector<ConfigProblem>& problems) {
  if (dlq.empty()) return;
  const bool listed = std::find(out.topics.begin(), out.topics.end(), dlq) != out.topics.end();
  bool matched = false;
  if (!out.topics_regex.empty()) {
    try {
      matched = std::regex_match(dlq, std::regex(out.topics_regex));
    } catch (const std::regex_error&) {
    }
  }
  if (listed || matched)
    problems.push_back({"errors.deadletterqueue.topic.name",
                        fmt::format("the dead-letter queue topic '{}' is also consumed by this "
                                    "connector ({}); choose another topic",
                                    dlq, listed ? "topics" : "topics.regex")});
}

}  // namespace

const ConfigDef& SinkConnectorConfig::configDef() {
  static const ConfigDef def = makeDef();
  return def;
}

SinkConnectorConfig SinkConnectorConfig::parse(const Config& raw, const ConfigDef& sink_keys) {
  ConfigDef def = configDef();
  def.include(raw.definitions()).include(sink_keys);
  std::vector<ConfigProblem> problems = def.validate(raw.values());
  const Config config(raw.values());
  auto value = [&](std::string_view key) { return def.valueOf(config.values(), key); };
  auto longValue = [&](std::string_view key, int64_t fallback) {
    return detail::parseLong(value(key)).value_or(fallback);
  };

  SinkConnectorConfig out;
  const auto worker = WorkerConfig::parse(config);
  out.name = worker.name;
  out.tasks_max = worker.tasks_max;
  out.offset_flush_interval = worker.offset_flush_interval;
  out.offset_flush_timeout = worker.offset_flush_timeout;
  out.shutdown_graceful_timeout = worker.shutdown_graceful_timeout;
  out.stall_after = worker.stall_after;
  out.topics = detail::parseList(value("topics"));
  out.topics_regex = std::string(detail::trim(value("topics.regex")));
  out.retry_delay_max = std::chrono::milliseconds(longValue("errors.retry.delay.max.ms", 0));
  out.retry_timeout = std::chrono::milliseconds(longValue("errors.retry.timeout", 0));
  checkTopics(out.topics, out.topics_regex, problems);

  auto props = consumerProperties(config, value("bootstrap.servers"), out.name);
  out.max_poll_records = static_cast<int>(longValue("consumer.max.poll.records", 10000));
  checkConsumerProperties(props, out, problems);
  out.consumer_properties = librdkafkaProperties(props, problems);
  refuseConsumedDlq(std::string(detail::trim(value("errors.deadletterqueue.topic.name"))), out,
                    problems);

  if (!problems.empty()) throw ConfigException(std::move(problems));
  out.sink_name = value("connector.class");
  out.errors = ErrorsConfig::parse(config);
  return out;
}

}  // namespace ksink
