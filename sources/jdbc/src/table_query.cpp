#include "table_query.h"

#include "ksink/db/sql_identifier.h"

namespace ksink::jdbc {

QuerySpec TableQuery::build(const JdbcSourceConfig& config, const SourceDatabase& db,
                            const std::optional<TableRef>& table, const TableInfo* info,
                            const std::string& incrementing_column, const JdbcOffset& from,
                            const std::optional<Instant>& end,
                            std::optional<int64_t> incrementing_bound) {
  using Mode = JdbcSourceConfig::Mode;
  auto zoneless = [&](const std::string& column) {
    const TableColumn* c = info ? info->column(column) : nullptr;
    return c && c->zoneless_timestamp;
  };
  QuerySpec spec;
  spec.table = info;
  spec.timestamp_columns =
      config.usesTimestamp() ? config.timestamp_columns : std::vector<std::string>{};
  spec.incrementing_column = config.usesIncrementing() ? incrementing_column : "";

  if (table) {
    spec.sql = "SELECT ";
    for (size_t i = 0; i < info->columns.size(); ++i) {
      const auto& c = info->columns[i];
      if (i > 0) spec.sql += ", ";
      const auto quoted = quoteIdentifier(c.name);
      const auto expr = c.zoneless_timestamp ? db.timestampExpression(quoted, true) : quoted;
      spec.sql += expr == quoted ? quoted : expr + " AS " + quoted;
    }
    spec.sql += " FROM " + table->quoted();
  } else {
    spec.sql = config.query;
  }

  std::string ts;
  if (config.usesTimestamp()) {
    const auto& columns = config.timestamp_columns;
    if (columns.size() > 1) ts = "COALESCE(";
    for (size_t i = 0; i < columns.size(); ++i) {
      if (i > 0) ts += ", ";
      ts += db.timestampExpression(quoteIdentifier(columns[i]), zoneless(columns[i]));
    }
    if (columns.size() > 1) ts += ")";
  }
  const std::string inc = quoteIdentifier(incrementing_column);
  const Instant begin = from.timestamp.value_or(Instant{});
  const int64_t last = from.incrementing.value_or(-1);
  auto p = [&](int n) { return db.placeholder(n); };
  switch (config.mode) {
    case Mode::kBulk:
      break;
    case Mode::kIncrementing:
      spec.sql += " WHERE " + inc + " > " + p(1);
      spec.params = {last};
      if (incrementing_bound) {
        spec.sql += " AND " + inc + " <= " + p(2);
        spec.params.push_back(*incrementing_bound);
      }
      spec.sql += " ORDER BY " + inc + " ASC";
      break;
    case Mode::kTimestamp:
      spec.sql +=
          " WHERE " + ts + " > " + p(1) + " AND " + ts + " < " + p(2) + " ORDER BY " + ts + " ASC";
      spec.params = {begin, *end};
      break;
    case Mode::kTimestampIncrementing:
      spec.sql += " WHERE " + ts + " < " + p(1) + " AND ((" + ts + " = " + p(2) + " AND " + inc +
                  " > " + p(3) + ") OR " + ts + " > " + p(4) + ") ORDER BY " + ts + "," + inc +
                  " ASC";
      spec.params = {*end, begin, last, begin};
      break;
  }
  if (!config.query_suffix.empty()) spec.sql += " " + config.query_suffix;
  return spec;
}

}  // namespace ksink::jdbc
