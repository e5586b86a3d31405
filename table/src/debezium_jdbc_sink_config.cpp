// The Debezium JDBC sink's configuration keys, served by the table sinks (see
// TableSinkConfig::fromDebeziumJdbcSink). The list is in docs/configuration-compatibility.md.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "ksink/config_exception.h"
#include "ksink/detail/config_parse.h"
#include "ksink/table_sink_config.h"

namespace ksink {
namespace {

// The chain steps the Debezium class appends to the connector's own transforms.
constexpr std::string_view kTableStep = "__debezium_table";
constexpr std::string_view kUnwrapStep = "__debezium_unwrap";

// Keys of the Confluent JDBC sink the Debezium sink does not read: set under the Debezium class
// they would change nothing there, so they are not silently honoured here either.
constexpr std::array kConfluentOnlyKeys{"pk.mode",     "pk.fields",        "auto.create",
                                        "auto.evolve", "fields.whitelist", "connection.user"};

// Pure tuning of the Debezium sink's Hibernate connection pool and flush retries: ksink has its
// own connection handling and retry policy (errors.retry.*).
bool isTuningKey(std::string_view key) {
  return key.starts_with("connection.pool.") || key.starts_with("hibernate.") ||
         key == "connection.provider" || key == "connection.restart.on.errors" ||
         key == "flush.max.retries" || key == "flush.retry.delay.ms" ||
         key == "flush.failure.max.retries" || key == "flush.failure.retries.wait.ms" ||
         key == "use.reduction.buffer" || key == "dialect.postgres.postgis.schema" ||
         key == "dialect.sqlserver.identity.insert";
}

// The Debezium sink's keys as they are taken over: each read once and removed from `values`; a
// value not among the allowed ones is a problem.
struct DebeziumKeys {
  std::map<std::string, std::string>& values;
  std::vector<ConfigProblem>& problems;

  std::optional<std::string> take(const std::string& key) {
    auto it = values.find(key);
    if (it == values.end()) return std::nullopt;
    auto v = std::string(detail::trim(it->second));
    values.erase(it);
    return v;
  }
  std::string oneOf(const std::string& key, std::string value,
                    std::initializer_list<std::string_view> allowed) {
    value = detail::asciiLower(value);
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
      problems.push_back({key, fmt::format("'{}' is not one of {}", value,
                                           fmt::join(allowed.begin(), allowed.end(), ", "))});
    return value;
  }
};

// The Debezium sink's keys that have a ksink equivalent, as that equivalent.
std::map<std::string, std::string> translatedKeys(DebeziumKeys& keys) {
  std::map<std::string, std::string> out;
  if (auto v = keys.take("connection.username")) out["connection.user"] = *v;
  if (auto v = keys.take("insert.mode"))
    out["insert.mode"] = keys.oneOf("insert.mode", *v, {"insert", "upsert", "update"});
  if (auto v = keys.take("delete.enabled")) out["delete.enabled"] = *v;
  if (auto v = keys.take("primary.key.mode")) {
    const auto mode = keys.oneOf("primary.key.mode", *v,
                                 {"none", "kafka", "record_key", "record_value", "record_header"});
    if (mode == "record_header")
      keys.problems.push_back({"primary.key.mode",
                               "record_header is not supported: ksink takes primary keys from "
                               "the record's key or value, or its Kafka coordinates"});
    out["pk.mode"] = mode;
  }
  if (auto v = keys.take("primary.key.fields")) out["pk.fields"] = *v;
  if (auto v = keys.take("schema.evolution")) {
    const bool basic = keys.oneOf("schema.evolution", *v, {"none", "basic"}) == "basic";
    out["auto.create"] = out["auto.evolve"] = basic ? "true" : "false";
  }
  if (auto v = keys.take("quote.identifiers"))
    out["quote.identifiers"] = keys.oneOf("quote.identifiers", *v, {"true", "false"});
  out["table.style"] = "debezium";
  return out;
}

// What the Debezium sink can be told that ksink does not do: times in another zone, naming
// strategies of one's own.
void refuseUnsupported(DebeziumKeys& keys) {
  if (auto v = keys.take("database.time_zone"); v && *v != "UTC" && *v != "Z" && *v != "+00:00")
    keys.problems.push_back(
        {"database.time_zone", fmt::format("'{}': ksink writes times in UTC only", *v)});
  if (auto v = keys.take("collection.naming.strategy");
      v && *v != "io.debezium.sink.naming.DefaultCollectionNamingStrategy" &&
      *v != "io.debezium.connector.jdbc.naming.DefaultTableNamingStrategy")
    keys.problems.push_back(
        {"collection.naming.strategy",
         fmt::format("'{}': only Debezium's default strategy is supported", *v)});
  if (auto v = keys.take("column.naming.strategy");
      v && *v != "io.debezium.connector.jdbc.naming.DefaultColumnNamingStrategy" &&
      *v != "io.debezium.sink.naming.DefaultColumnNamingStrategy")
    keys.problems.push_back(
        {"column.naming.strategy",
         fmt::format("'{}': only Debezium's default strategy is supported", *v)});
}

void dropTuningKeys(std::map<std::string, std::string>& values) {
  for (auto it = values.begin(); it != values.end();) {
    if (isTuningKey(it->first)) {
      spdlog::warn("{}: a tuning key of the Debezium JDBC sink with no ksink equivalent; ignored",
                   it->first);
      it = values.erase(it);
    } else {
      ++it;
    }
  }
}

// The envelope, after the connector's own transforms: the table name from the change event
// (collection.name.format), then the row state it describes.
void addEnvelopeSteps(const std::map<std::string, std::string>& values,
                      std::map<std::string, std::string>& out,
                      const std::optional<std::string>& format, bool truncate) {
  auto transforms = detail::parseList(values.contains("transforms") ? values.at("transforms") : "");
  transforms.emplace_back(kTableStep);
  transforms.emplace_back(kUnwrapStep);
  const std::string table_prefix = fmt::format("transforms.{}.", kTableStep);
  const std::string unwrap_prefix = fmt::format("transforms.{}.", kUnwrapStep);
  out["transforms"] = fmt::format("{}", fmt::join(transforms, ","));
  out[table_prefix + "type"] = "io.ksink.transforms.DebeziumCollectionName";
  out[table_prefix + "format"] = format.value_or("${topic}");
  // Deletes become tombstones and tombstones stay: the Debezium sink deletes by key for both (a
  // tombstone after a delete event deletes nothing more), and a topic of plain rows has only
  // tombstones to delete with (delete.enabled decides, in the mapper).
  out[unwrap_prefix + "type"] = "io.debezium.transforms.ExtractNewRecordState";
  out[unwrap_prefix + "drop.tombstones"] = "false";
  out[unwrap_prefix + "delete.handling.mode"] = "none";
  out[unwrap_prefix + "truncate.handling.mode"] = truncate ? "truncate" : "drop";
  out["table.name.format"] = "${topic}";  // the table step named the destination table
}

}  // namespace

std::map<std::string, std::string> TableSinkConfig::fromDebeziumJdbcSink(
    std::map<std::string, std::string> values) {
  std::vector<ConfigProblem> problems;
  for (const auto* key : kConfluentOnlyKeys)
    if (values.contains(key))
      problems.push_back(
          {key,
           "is a key of the Confluent JDBC sink, which the Debezium JDBC sink "
           "(io.debezium.connector.jdbc.JdbcSinkConnector) does not read; use its own key "
           "(primary.key.mode, primary.key.fields, schema.evolution, connection.username)"});
  DebeziumKeys keys{values, problems};
  auto out = translatedKeys(keys);
  bool truncate = false;
  if (auto v = keys.take("truncate.enabled"))
    truncate = keys.oneOf("truncate.enabled", *v, {"true", "false"}) == "true";
  // Debezium 2.x named it table.name.format; the Debezium class reads either.
  auto format = keys.take("collection.name.format");
  if (auto legacy = keys.take("table.name.format"); legacy && !format) format = legacy;
  refuseUnsupported(keys);
  dropTuningKeys(values);
  if (!problems.empty()) throw ConfigException(std::move(problems));
  addEnvelopeSteps(values, out, format, truncate);
  for (auto& [k, v] : out) values.insert_or_assign(k, std::move(v));
  return values;
}

}  // namespace ksink
