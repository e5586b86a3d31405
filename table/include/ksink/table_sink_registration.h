// TableSinkRegistration: how a table sink (a TransactionalSinkTask configured by TableSinkConfig)
// joins a ConnectorRegistry — under its name with Confluent's JDBC sink keys, as `debezium-<name>`
// with the Debezium JDBC sink's keys (TableSinkConfig::fromDebeziumJdbcSink), and claiming
// Confluent's and Debezium's JDBC sink classes for the connection URLs it opens. Register from the
// main thread, before runCli() (ConnectorRegistry's rule).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/config.h"
#include "ksink/config_def.h"
#include "ksink/connector_registry.h"
#include "ksink/sink_task.h"

namespace ksink {

struct TableSinkRegistration {
  std::string name;  // e.g. "postgres"; the Debezium entry is "debezium-" + name
  TaskFactory factory;
  ConfigDef config_def;
  std::string tables;       // what it writes, e.g. "PostgreSQL tables"
  std::string description;  // the rest of the Confluent entry's description, after `tables`
  std::function<void(const Config&, const std::optional<OffsetMap>&)> alter_offsets;
  // Whether the sink can open this connection.url (the JDBC sink classes' claim), and which URLs
  // those are, for the message when none opens one (e.g. "PostgreSQL (jdbc:postgresql://…)").
  std::function<bool(std::string_view url)> opens_url;
  std::string url_forms;
  std::vector<std::string> aliases;  // of the Confluent entry

  // A registration of `Task` (its factory and Task::configDef()); the caller sets the rest.
  template <class Task>
  static TableSinkRegistration of(std::string name, std::string tables, std::string description) {
    TableSinkRegistration r;
    r.name = std::move(name);
    r.factory = [] { return std::make_unique<Task>(); };
    r.config_def = Task::configDef();
    r.tables = std::move(tables);
    r.description = std::move(description);
    return r;
  }

  void registerIn(ConnectorRegistry& registry) const;
};

}  // namespace ksink
