#include "pg_table.h"

#include <cstdlib>

#include "pg_sql.h"

namespace ksink::postgres {

const PgTable::Column* PgTable::column(std::string_view name) const {
  for (const auto& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

std::optional<PgTable> PgTable::describe(PgConnection& connection, const TableId& id) {
  auto exists = connection.execParams(PgSql::tableOid(), {id.quoted()});
  if (PQgetisnull(exists.get(), 0, 0)) return std::nullopt;
  const std::string oid = PQgetvalue(exists.get(), 0, 0);
  auto r = connection.execParams(PgSql::describeColumns(), {oid});
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
