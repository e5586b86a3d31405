// TablePolicy: what a table sink does when the table a record layout goes to is missing or lacks
// columns — create it (auto.create), add the columns (auto.evolve), or refuse with a
// ConfigException naming the table (key auto.create) or the columns (key auto.evolve). The
// decisions, the catalog re-reads that let two tasks race to create the same table, and the
// messages are here, once; a sink provides only its catalog and dialect through Catalog.
//
// Thread-safety: a plain value; resolve() is called from the task's thread, with its Catalog.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/config_exception.h"
#include "ksink/record_mapper.h"
#include "ksink/table_sink_config.h"

namespace ksink {

class TablePolicy {
 public:
  // The destination's tables as a sink reads and changes them (its SQL, its type mapping).
  class Catalog {
   public:
    virtual ~Catalog() = default;
    // Whether `table` (TableSinkConfig::tableName()) exists; `refresh` reads the catalog again
    // instead of what the sink remembers.
    virtual bool exists(const std::string& table, bool refresh) = 0;
    // Whether `table`, as last read, has `column`.
    virtual bool hasColumn(const std::string& table, const std::string& column) = 0;
    // CREATE TABLE for `layout`'s rows; ADD COLUMN `column` (nullable) to `table`. Another task
    // having done it first is not an error.
    virtual void create(const RecordMapper::Layout& layout) = 0;
    virtual void addColumn(const std::string& table, const RecordMapper::Column& column) = 0;
    // The table's name as error messages show it.
    virtual std::string display(const std::string& table) = 0;
  };

  struct Resolution {
    bool exists = false;               // false: a table to delete from that does not exist
    std::vector<std::string> missing;  // columns the table lacks (auto.evolve=false): bad records
  };

  explicit TablePolicy(const TableSinkConfig& config)
      : auto_create_(config.auto_create), auto_evolve_(config.auto_evolve) {}

  // Makes `layout.table` ready for its rows' first `needed` columns (all for writes, the key
  // columns for deletes): creates the table unless `for_delete` (a delete from a missing table
  // has nothing to do), adds missing columns. Throws ConfigException when the table is missing
  // and auto.create=false.
  Resolution resolve(Catalog& catalog, const RecordMapper::Layout& layout, size_t needed,
                     bool for_delete) const;

  // At start, unless auto.create: the tables of `topics` must exist. Throws one ConfigException
  // (key auto.create) naming every missing table and its topic; `where` (e.g. the database file)
  // is added to each reason when not empty.
  void checkTablesAtStart(Catalog& catalog, const TableSinkConfig& config,
                          const std::vector<std::string>& topics,
                          std::string_view where = {}) const;

  // The error a row carries when its table lacks `missing` columns and auto.evolve=false.
  static ConfigException missingColumns(std::string_view table_display,
                                        const std::vector<std::string>& missing);

 private:
  bool auto_create_;
  bool auto_evolve_;
};

}  // namespace ksink
