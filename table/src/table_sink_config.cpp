#include "ksink/table_sink_config.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "jdbc_sink_compat.h"
#include "ksink/converter.h"
#include "ksink/detail/config_parse.h"
#include "ksink/transformation_chain.h"

namespace ksink {
namespace {

using InsertMode = TableSinkConfig::InsertMode;
using PkMode = TableSinkConfig::PkMode;

InsertMode insertModeOf(const std::string& s) {
  if (s == "upsert") return InsertMode::kUpsert;
  if (s == "update") return InsertMode::kUpdate;
  return InsertMode::kInsert;
}

PkMode pkModeOf(const std::string& s) {
  if (s == "kafka") return PkMode::kKafka;
  if (s == "record_key") return PkMode::kRecordKey;
  if (s == "record_value") return PkMode::kRecordValue;
  return PkMode::kNone;
}

}  // namespace

std::string TableSinkConfig::tableName(std::string_view topic) const {
  std::string out = table_name_format;
  constexpr std::string_view kPlaceholder = "${topic}";
  for (size_t at = out.find(kPlaceholder); at != std::string::npos;
       at = out.find(kPlaceholder, at + topic.size()))
    out.replace(at, kPlaceholder.size(), topic);
  return fold_identifiers ? detail::asciiLower(out) : out;
}

bool TableSinkConfig::FieldFilter::keeps(std::string_view topic, std::string_view field) const {
  for (const auto& [t, f] : entries)
    if (f == field && (t.empty() || t == topic)) return include;
  return !include;
}

std::string TableSinkConfig::identifier(std::string_view name) const {
  return fold_identifiers ? detail::asciiLower(name) : std::string(name);
}

namespace {

// The keys' values (their defaults where unset) without any check: the rules and parse() read
// the same fields.
TableSinkConfig read(const std::map<std::string, std::string>& values) {
  auto str = [&](std::string_view key) {
    if (auto it = values.find(std::string(key)); it != values.end()) return it->second;
    const auto* k = TableSinkConfig::configDef().find(key);
    return k && k->default_value ? *k->default_value : std::string();
  };
  auto list = [&](std::string_view key) {
    return detail::parseList(str(key));
  };  // trimmed, once each
  auto boolean = [&](std::string_view key) {
    return detail::asciiLower(detail::trim(str(key))) == "true";
  };

  TableSinkConfig out;
  out.connector_name = str("name");
  out.table_name_format = str("table.name.format");
  out.insert_mode = insertModeOf(detail::asciiLower(detail::trim(str("insert.mode"))));
  out.pk_mode = pkModeOf(detail::asciiLower(detail::trim(str("pk.mode"))));
  out.pk_fields = list("pk.fields");
  out.fields_whitelist = list("fields.whitelist");
  out.delete_enabled = boolean("delete.enabled");
  out.auto_create = boolean("auto.create");
  out.auto_evolve = boolean("auto.evolve");
  out.batch_size = static_cast<int32_t>(detail::parseLong(str("batch.size")).value_or(0));
  if (detail::asciiLower(detail::trim(str("table.style"))) == "debezium") {
    out.table_style = TableSinkConfig::TableStyle::kDebezium;
    out.fold_identifiers = !boolean("quote.identifiers");
  }
  const auto include = list("field.include.list");
  const auto exclude = list("field.exclude.list");
  out.field_filter.include = exclude.empty();
  for (const auto& entry : exclude.empty() ? include : exclude) {
    const auto colon = entry.find(':');
    if (colon == std::string::npos)
      out.field_filter.entries.emplace_back("", entry);
    else
      out.field_filter.entries.emplace_back(detail::trim(entry.substr(0, colon)),
                                            detail::trim(entry.substr(colon + 1)));
  }
  out.field_filter.topic_specific =
      std::any_of(out.field_filter.entries.begin(), out.field_filter.entries.end(),
                  [](const auto& e) { return !e.first.empty(); });
  return out;
}

// Confluent's rules between keys. A rule of the definitions (ConfigDef::check), so that
// `ksink validate` applies them as `ksink run` does, before anything connects.
std::vector<ConfigProblem> crossKeyProblems(const std::map<std::string, std::string>& values) {
  const auto c = read(values);
  std::vector<ConfigProblem> problems;
  if (c.table_name_format.empty()) problems.push_back({"table.name.format", "must not be empty"});
  if (c.delete_enabled && c.pk_mode != PkMode::kRecordKey)
    problems.push_back({"delete.enabled",
                        "delete.enabled=true requires pk.mode=record_key (deletes find rows by "
                        "the record key)"});
  if (c.insert_mode != InsertMode::kInsert && c.pk_mode == PkMode::kNone)
    problems.push_back({"insert.mode", fmt::format("insert.mode={} needs a primary key: set "
                                                   "pk.mode to kafka, record_key or record_value",
                                                   values.at("insert.mode"))});
  if (c.pk_mode == PkMode::kKafka && !c.pk_fields.empty() && c.pk_fields.size() != 3)
    problems.push_back({"pk.fields",
                        "pk.mode=kafka takes no pk.fields or exactly three names "
                        "(topic, partition and offset columns)"});
  if (c.pk_mode == PkMode::kNone && !c.pk_fields.empty())
    problems.push_back({"pk.fields", "pk.fields is set but pk.mode=none"});
  auto set = [&](const char* key) {
    auto it = values.find(key);
    return it != values.end() && !detail::parseList(it->second).empty();
  };
  if (c.table_style != TableSinkConfig::TableStyle::kDebezium) {
    for (const char* key : {"quote.identifiers", "field.include.list", "field.exclude.list"})
      if (values.contains(key))
        problems.push_back(
            {key,
             "is the Debezium JDBC sink's key (table.style=debezium); the Confluent sink's "
             "tables quote every name and choose fields with fields.whitelist"});
  } else if (set("field.include.list") && set("field.exclude.list")) {
    problems.push_back({"field.exclude.list",
                        "field.include.list is set too: give one of the two, as the Debezium "
                        "sink requires"});
  }
  return problems;
}

}  // namespace

TableSinkConfig TableSinkConfig::parse(const Config& config) {
  // Validate against our own keys (and rules) even when the Config was built with other
  // definitions.
  auto problems = configDef().validate(config.values());
  if (!problems.empty()) throw ConfigException(std::move(problems));
  auto out = read(config.values());
  if (out.pk_mode == PkMode::kKafka && out.pk_fields.empty())
    out.pk_fields = {std::string(kTopicColumn), std::string(kPartitionColumn),
                     std::string(kOffsetColumn)};
  for (const auto& line : configDef().ignoredIn(config.values())) spdlog::warn("{}", line);
  return out;
}

const ConfigDef& TableSinkConfig::configDef() {
  static const ConfigDef def = [] {
    using Type = ConfigDef::Type;
    using Importance = ConfigDef::Importance;
    ConfigDef d;
    d.define("table.name.format", Type::kString, "${topic}", Importance::kMedium,
             "Destination table name; ${topic} is replaced by the record's topic")
        // In any case, as Confluent's sink reads them (InsertMode.valueOf(….toUpperCase())).
        .define("insert.mode", Type::kString, "insert", Importance::kHigh,
                "insert: plain inserts; upsert: insert or update by primary key; update: update "
                "existing rows by primary key",
                ConfigDef::oneOfAnyCase({"insert", "upsert", "update"}))
        .define("pk.mode", Type::kString, "none", Importance::kHigh,
                "Primary key: none, kafka (topic, partition, offset), record_key, record_value",
                ConfigDef::oneOfAnyCase({"none", "kafka", "record_key", "record_value"}))
        .define("pk.fields", Type::kList, "", Importance::kMedium,
                "Primary key field names (meaning depends on pk.mode, as in the JDBC sink)")
        .define("fields.whitelist", Type::kList, "", Importance::kMedium,
                "Value fields to write (empty = all)")
        .define("delete.enabled", Type::kBoolean, "false", Importance::kMedium,
                "Tombstones (null values) delete the row with the record key's primary key")
        .define("auto.create", Type::kBoolean, "false", Importance::kMedium,
                "Create missing tables from the record schema")
        .define("auto.evolve", Type::kBoolean, "false", Importance::kMedium,
                "Add missing columns (nullable) when records carry new fields")
        .define("batch.size", Type::kInt, "10000", Importance::kMedium,
                "Most records written in one destination transaction", ConfigDef::atLeast(1))
        .define("table.style", Type::kString, "confluent", Importance::kLow,
                "Whose tables to make: the Confluent JDBC sink's (confluent) or the Debezium "
                "JDBC sink's (debezium: its column types and key column order; the Debezium "
                "class sets it)",
                ConfigDef::oneOfAnyCase({"confluent", "debezium"}))
        .define("field.include.list", Type::kList, "", Importance::kLow,
                "With table.style=debezium: the fields written, each `field` or "
                "`<topic>:<field>` (exact names); the key's too unless pk.fields is set")
        .define("field.exclude.list", Type::kList, "", Importance::kLow,
                "With table.style=debezium: the fields not written, as field.include.list")
        .define("quote.identifiers", Type::kBoolean, "false", Importance::kLow,
                "With table.style=debezium: false (Debezium's default) makes table and column "
                "names lower case, as PostgreSQL folds Debezium's unquoted names");
    d.include(Converter::configDef());
    d.include(TransformationChain::configDef());  // RecordMapper runs the chain
    d.defineIgnored("header.converter", "Kafka Connect",
                    "the table sinks read no header through a converter");
    detail::defineJdbcSinkCompatKeys(d);
    d.check(crossKeyProblems);
    return d;
  }();
  return def;
}

}  // namespace ksink
