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
  // Whose tables the sink makes (table.style): the Confluent JDBC sink's (the default), or the
  // Debezium JDBC sink's — its column types (sink-specific, see the sinks' type mappings), its key
  // columns in the order of the record's fields rather than of pk.fields, and, with its
  // quote.identifiers=false (the default there), table and column names in lower case, as
  // PostgreSQL folds Debezium's unquoted names (ksink still quotes them). The Debezium class sets
  // it.
  enum class TableStyle { kConfluent, kDebezium };

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
  TableStyle table_style = TableStyle::kConfluent;
  bool fold_identifiers = false;  // Debezium style without quote.identifiers=true
  // The Debezium JDBC sink's field.include.list / field.exclude.list: entries `field` (any topic)
  // or `<topic>:<field>` (the record's topic after the transforms, dots and all: the table the
  // collection naming makes of it is not a topic), matched exactly, on the value's fields, and on
  // the key's when pk.fields is empty.
  struct FieldFilter {
    bool include = true;  // an include list; else an exclude list
    std::vector<std::pair<std::string, std::string>> entries;  // (topic or "", field)
    bool topic_specific = false;  // an entry names a topic (known once, asked per record)
    bool empty() const { return entries.empty(); }
    bool keeps(std::string_view topic, std::string_view field) const;
  };
  FieldFilter field_filter;

  // The table a record of `topic` goes to (`${topic}` replaced), folded to lower case with
  // fold_identifiers.
  std::string tableName(std::string_view topic) const;
  // A table or column name as the sink creates it: in lower case (ASCII, as PostgreSQL folds an
  // unquoted name) with fold_identifiers, else as it is.
  std::string identifier(std::string_view name) const;

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
