// TableSinkConfig: the configuration keys shared by the table sinks (PostgreSQL, SQLite), named and
// defaulted as in Confluent's JDBC sink so existing .properties files carry over:
//   table.name.format (${topic}), insert.mode (insert|upsert|update), pk.mode
//   (none|kafka|record_key|record_value), pk.fields, fields.whitelist, delete.enabled,
//   auto.create, auto.evolve, batch.size, plus the converter keys (see converter.h).
//
// parse() validates with Confluent's cross-key rules (delete.enabled needs pk.mode=record_key;
// upsert and update need a primary key; pk.mode=kafka takes zero or three pk.fields) and throws a
// ConfigException naming every problem. A parsed TableSinkConfig is a plain value.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/config.h"
#include "ksink/config_def.h"

namespace ksink {

struct TableSinkConfig {
  enum class InsertMode { kInsert, kUpsert, kUpdate };
  enum class PkMode { kNone, kKafka, kRecordKey, kRecordValue };

  // The column names pk.mode=kafka uses when pk.fields is empty.
  static constexpr std::string_view kTopicColumn = "__connect_topic";
  static constexpr std::string_view kPartitionColumn = "__connect_partition";
  static constexpr std::string_view kOffsetColumn = "__connect_offset";
  // The column a non-struct key (pk.mode=record_key without pk.fields) or a non-struct value
  // (e.g. StringConverter) goes to.
  static constexpr std::string_view kKeyColumn = "key";
  static constexpr std::string_view kValueColumn = "value";

  std::string connector_name;  // `name`: the owner of rows in ksink_offsets
  std::string table_name_format = "${topic}";
  InsertMode insert_mode = InsertMode::kInsert;
  PkMode pk_mode = PkMode::kNone;
  std::vector<std::string> pk_fields;
  std::vector<std::string> fields_whitelist;  // empty = all fields
  bool delete_enabled = false;
  bool auto_create = false;
  bool auto_evolve = false;
  int32_t batch_size = 3000;  // most rows per destination transaction

  // The table a record of `topic` goes to (`${topic}` replaced).
  std::string tableName(std::string_view topic) const;

  // Throws ConfigException naming every bad key.
  static TableSinkConfig parse(const Config& config);
  // The keys above plus the converter keys; a sink includes it in its own ConfigDef.
  static const ConfigDef& configDef();

  // The Debezium JDBC sink's configuration (io.debezium.connector.jdbc.JdbcSinkConnector:
  // primary.key.mode, primary.key.fields, schema.evolution, collection.name.format,
  // connection.username, …) as the table sinks' own keys, with the change-event envelope read
  // natively: a chain step resolving collection.name.format and Debezium's unwrap are appended
  // to the connector's transforms (c/r/u → the new row; d and tombstones → deletes by key, done
  // with delete.enabled and skipped without, as the Debezium sink does; truncates skipped unless
  // truncate.enabled). Throws ConfigException naming every Debezium key ksink cannot serve, and
  // every Confluent-only key, which the Debezium sink would not read. Used as ConnectorRegistry's
  // adapt_config by the table sinks.
  static std::map<std::string, std::string> fromDebeziumJdbcSink(
      std::map<std::string, std::string> values);
};

}  // namespace ksink
