#include "pg_table.h"

#include <cstdlib>

namespace ksink::postgres {

const PgTable::Column* PgTable::column(std::string_view name) const {
  for (const auto& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

std::optional<PgTable> PgTable::describe(PgConnection& connection, const TableId& id) {
  auto exists = connection.execParams("SELECT to_regclass($1)::oid::int8", {id.quoted()});
  if (PQgetisnull(exists.get(), 0, 0)) return std::nullopt;
  const std::string oid = PQgetvalue(exists.get(), 0, 0);
  auto r = connection.execParams(
      "SELECT a.attname, bt.oid::int8,"
      " CASE WHEN bt.typcategory = 'A' THEN bt.typelem ELSE 0 END::int8,"
      " format_type(a.atttypid, a.atttypmod), a.attnotnull"
      " FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid"
      " JOIN pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END"
      " WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
      {oid});
  PgTable table{id, {}};
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    table.columns.push_back(
        {PQgetvalue(r.get(), i, 0),
         static_cast<uint32_t>(std::strtoul(PQgetvalue(r.get(), i, 1), nullptr, 10)),
         static_cast<uint32_t>(std::strtoul(PQgetvalue(r.get(), i, 2), nullptr, 10)),
         PQgetvalue(r.get(), i, 3), PQgetvalue(r.get(), i, 4)[0] == 't'});
  }
  return table;
}

}  // namespace ksink::postgres
