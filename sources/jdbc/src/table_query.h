// The JDBC source's queries, per mode (Confluent's TimestampIncrementingCriteria, the same text
// and parameters), for a table or a user's query, in a database's placeholders and timestamp
// expressions:
//   bulk                    SELECT … FROM t
//   incrementing            … WHERE inc > ? ORDER BY inc ASC                       (last inc)
//   timestamp               … WHERE ts > ? AND ts < ? ORDER BY ts ASC              (begin, end)
//   timestamp+incrementing  … WHERE ts < ? AND ((ts = ? AND inc > ?) OR ts > ?)
//                             ORDER BY ts,inc ASC                       (end, begin, inc, begin)
// (incrementing with a commit horizon: … WHERE inc > ? AND inc <= ? ORDER BY inc ASC; timestamp
// modes take the horizon's bound as their end when it is earlier)
// with ts = COALESCE(a, b, …) for several timestamp columns, end = the database's now minus
// timestamp.delay.interval.ms, and query.suffix appended. Pure: unit-tested without a database.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "jdbc_offset.h"
#include "jdbc_source_config.h"
#include "source_database.h"

namespace ksink::jdbc {

struct TableQuery {
  // `table`/`info` nullopt/nullptr: query mode (config.query).
  static QuerySpec build(const JdbcSourceConfig& config, const SourceDatabase& db,
                         const std::optional<TableRef>& table, const TableInfo* info,
                         const std::string& incrementing_column, const JdbcOffset& from,
                         const std::optional<Instant>& end,
                         std::optional<int64_t> incrementing_bound = std::nullopt);
};

}  // namespace ksink::jdbc
