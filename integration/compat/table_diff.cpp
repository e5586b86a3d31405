#include "table_diff.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "ksink/db/sql_identifier.h"

namespace ksink::it {
namespace {

struct ColumnInfo {
  std::string name;
  std::string type;
  std::string default_value;  // "none" when there is none
  bool not_null = false;
};

struct TableInfo {
  std::vector<ColumnInfo> columns;  // in the table's order
  std::vector<std::string> primary_key;

  const ColumnInfo* column(const std::string& name) const {
    for (const auto& c : columns)
      if (c.name == name) return &c;
    return nullptr;
  }
};

std::map<std::string, TableInfo> readTables(PgTestSchema& schema) {
  std::map<std::string, TableInfo> out;
  const auto ns = quoteLiteral(schema.name());
  for (const auto& row : schema.query(fmt::format(
           "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), "
           "coalesce(pg_get_expr(d.adbin, d.adrelid), 'none'), a.attnotnull "
           "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
           "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
           "LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum "
           "WHERE n.nspname = {} AND c.relkind IN ('r', 'p') AND c.relname <> 'ksink_offsets' "
           "ORDER BY c.relname, a.attnum",
           ns)))
    out[*row[0]].columns.push_back({*row[1], *row[2], *row[3], *row[4] == "t"});
  for (const auto& row : schema.query(fmt::format(
           "SELECT c.relname, a.attname FROM pg_index i "
           "JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
           "CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) "
           "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum "
           "WHERE n.nspname = {} AND i.indisprimary ORDER BY c.relname, k.ord",
           ns)))
    if (auto it = out.find(*row[0]); it != out.end()) it->second.primary_key.push_back(*row[1]);
  return out;
}

// The table's rows as text over `columns` (PostgreSQL's spelling of a row), sorted.
std::vector<std::string> rowsOf(PgTestSchema& schema, const std::string& table,
                                const std::vector<std::string>& columns) {
  std::vector<std::string> quoted;
  for (const auto& c : columns) quoted.push_back(quoteIdentifier(c));
  std::vector<std::string> out;
  for (const auto& row :
       schema.query(fmt::format("SELECT ROW({})::text FROM {}.{}", fmt::join(quoted, ", "),
                                quoteIdentifier(schema.name()), quoteIdentifier(table))))
    out.push_back(row[0].value_or("NULL"));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<std::string> tableDifferences(const SchemaSide& a, const SchemaSide& b) {
  const auto tables_a = readTables(*a.schema);
  const auto tables_b = readTables(*b.schema);
  std::vector<std::string> out;
  auto onlyIn = [&](const auto& mine, const auto& theirs, const std::string& label) {
    for (const auto& [name, _] : mine)
      if (!theirs.contains(name)) out.push_back(fmt::format("{}: only in {}", name, label));
  };
  onlyIn(tables_a, tables_b, a.label);
  onlyIn(tables_b, tables_a, b.label);

  for (const auto& [name, ta] : tables_a) {
    auto found = tables_b.find(name);
    if (found == tables_b.end()) continue;
    const auto& tb = found->second;
    std::vector<std::string> common_a, common_b;
    for (const auto& c : ta.columns) {
      const auto* other = tb.column(c.name);
      if (!other) {
        out.push_back(fmt::format("{}.{}: only in {}", name, c.name, a.label));
        continue;
      }
      common_a.push_back(c.name);
      auto differ = [&](const char* what, const std::string& x, const std::string& y) {
        if (x != y)
          out.push_back(fmt::format("{}.{}: {} {} ({}) / {} ({})", name, c.name, what, x, a.label,
                                    y, b.label));
      };
      differ("type", c.type, other->type);
      differ("default", c.default_value, other->default_value);
      differ("null", c.not_null ? "NOT NULL" : "nullable",
             other->not_null ? "NOT NULL" : "nullable");
    }
    for (const auto& c : tb.columns) {
      if (ta.column(c.name))
        common_b.push_back(c.name);
      else
        out.push_back(fmt::format("{}.{}: only in {}", name, c.name, b.label));
    }
    if (common_a != common_b)
      out.push_back(fmt::format("{}: column order {} ({}) / {} ({})", name,
                                fmt::join(common_a, ", "), a.label, fmt::join(common_b, ", "),
                                b.label));
    if (ta.primary_key != tb.primary_key)
      out.push_back(fmt::format("{}: primary key ({}) ({}) / ({}) ({})", name,
                                fmt::join(ta.primary_key, ", "), a.label,
                                fmt::join(tb.primary_key, ", "), b.label));
    if (common_a.empty()) continue;
    const auto rows_a = rowsOf(*a.schema, name, common_a);
    const auto rows_b = rowsOf(*b.schema, name, common_a);
    std::vector<std::string> only_a, only_b;
    std::set_difference(rows_a.begin(), rows_a.end(), rows_b.begin(), rows_b.end(),
                        std::back_inserter(only_a));
    std::set_difference(rows_b.begin(), rows_b.end(), rows_a.begin(), rows_a.end(),
                        std::back_inserter(only_b));
    for (const auto& r : only_a)
      out.push_back(fmt::format("{}: row only in {}: {}", name, a.label, r));
    for (const auto& r : only_b)
      out.push_back(fmt::format("{}: row only in {}: {}", name, b.label, r));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ksink::it
