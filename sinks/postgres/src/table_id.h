// TableId: a destination table, optionally schema-qualified, and its quoted SQL spelling.
//
// table.name.format decides the split: a '.' written in the format itself before ${topic}
// ("analytics.${topic}", "s.orders") separates schema and table; a '.' that comes from the topic
// name ("orders.v1") is part of the table name, so the usual dotted topic names need no setting.
// Without a schema the table resolves through the connection's search_path. Plain value type.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ksink/db/sql_identifier.h"

namespace ksink::postgres {

struct TableId {
  std::optional<std::string> schema;
  std::string name;

  // `table` is the format with ${topic} replaced (TableSinkConfig::tableName()).
  static TableId parse(std::string_view table, std::string_view table_name_format);

  // "schema"."name" / "name", each part quoted with embedded quotes doubled.
  std::string quoted() const;
  // schema.name / name, unquoted, for messages.
  std::string display() const;

  friend bool operator==(const TableId&, const TableId&) = default;
};

}  // namespace ksink::postgres
