// PgTable: what the sink knows of a destination table: its columns with their types, read from
// the catalog. Domains are resolved to their base type, because the binary encodings follow the
// base type (the server still checks the domain's constraints). Plain value type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/pg/pg_connection.h"
#include "table_id.h"

namespace ksink::postgres {

struct PgTable {
  struct Column {
    std::string name;
    uint32_t type_oid = 0;     // base type
    uint32_t element_oid = 0;  // arrays: the element type; 0 for other types
    std::string type_name;     // as format_type() spells it, for messages
    bool not_null = false;
  };

  TableId id;
  std::vector<Column> columns;

  const Column* column(std::string_view name) const;

  // Reads the table's columns; nullopt when no such table (or view) is visible.
  static std::optional<PgTable> describe(PgConnection& connection, const TableId& id);
};

}  // namespace ksink::postgres
