// SqliteSinkConfig: the SQLite sink's settings, parsed once from the keys its ConfigDef defines
// (connection.url, sqlite.synchronous, sqlite.busy.timeout.ms) plus TableSinkConfig's. parse()
// validates against configDef() and throws a ConfigException naming every bad key. A plain value.
#pragma once

#include <string>
#include <string_view>

#include "ksink/config.h"
#include "ksink/config_def.h"
#include "ksink/table_sink_config.h"

namespace ksink::sqlite {

struct SqliteSinkConfig {
  TableSinkConfig table;
  std::string path;                  // the database file connection.url names
  std::string synchronous = "FULL";  // PRAGMA synchronous
  int busy_timeout_ms = 30000;

  static SqliteSinkConfig parse(const Config& config);
  static const ConfigDef& configDef();
};

}  // namespace ksink::sqlite
