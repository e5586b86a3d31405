#include "ksink/table_policy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

namespace ksink {
namespace {

ConfigException missingTable(std::string_view table_display, std::string_view topic,
                             std::string_view where) {
  return ConfigException(std::vector<ConfigProblem>{
      {"auto.create",
       fmt::format("table {}{} does not exist{} and auto.create=false: create it or set "
                   "auto.create=true",
                   table_display, topic.empty() ? "" : fmt::format(" for topic {}", topic),
                   where.empty() ? "" : fmt::format(" in {}", where))}});
}

}  // namespace

ConfigException TablePolicy::missingColumns(std::string_view table_display,
                                            const std::vector<std::string>& missing) {
  return ConfigException(std::vector<ConfigProblem>{
      {"auto.evolve", fmt::format("table {} has no column(s) {} and auto.evolve=false: add them "
                                  "or set auto.evolve=true",
                                  table_display, fmt::join(missing, ", "))}});
}

void TablePolicy::checkTablesAtStart(Catalog& catalog, const TableSinkConfig& config,
                                     const std::vector<std::string>& topics,
                                     std::string_view where) const {
  if (auto_create_) return;
  std::vector<ConfigProblem> problems;
  for (const auto& topic : topics) {
    const auto table = config.tableName(topic);
    if (catalog.exists(table, true)) continue;
    auto e = missingTable(catalog.display(table), topic, where);
    problems.insert(problems.end(), e.problems().begin(), e.problems().end());
  }
  if (!problems.empty()) throw ConfigException(std::move(problems));
}

TablePolicy::Resolution TablePolicy::resolve(Catalog& catalog, const RecordMapper::Layout& layout,
                                             size_t needed, bool for_delete) const {
  const auto& table = layout.table;
  if (!catalog.exists(table, false) && !catalog.exists(table, true)) {
    if (for_delete) return {};
    if (!auto_create_) throw missingTable(catalog.display(table), {}, {});
    catalog.create(layout);
    if (!catalog.exists(table, true))
      throw std::runtime_error(
          fmt::format("table {} is still missing after CREATE TABLE", catalog.display(table)));
  }
  auto missingNow = [&] {
    std::vector<std::string> missing;
    for (size_t i = 0; i < needed && i < layout.columns.size(); ++i)
      if (!catalog.hasColumn(table, layout.columns[i].name))
        missing.push_back(layout.columns[i].name);
    return missing;
  };
  auto missing = missingNow();
  if (missing.empty()) return {true, {}};
  // Someone (another task, an operator) may have added them since the sink looked.
  if (!catalog.exists(table, true))
    throw std::runtime_error(fmt::format("table {} disappeared", catalog.display(table)));
  missing = missingNow();
  if (missing.empty()) return {true, {}};
  if (!auto_evolve_) return {true, std::move(missing)};
  for (const auto& name : missing)
    for (const auto& c : layout.columns)
      if (c.name == name) catalog.addColumn(table, c);
  if (!catalog.exists(table, true))
    throw std::runtime_error(fmt::format("table {} disappeared", catalog.display(table)));
  return {true, missingNow()};
}

}  // namespace ksink
