#include "ksink/table_sink_registration.h"

#include "ksink/table_sink_config.h"

namespace ksink {

void TableSinkRegistration::registerIn(ConnectorRegistry& registry) const {
  registry.add({name, factory, config_def, tables + description, alter_offsets}, aliases);
  const std::string debezium = "debezium-" + name;
  registry.add({debezium, factory, config_def,
                tables + " from Debezium change events (Debezium JDBC sink configuration)",
                alter_offsets, TableSinkConfig::fromDebeziumJdbcSink});
  const auto claim = [opens = opens_url](const std::map<std::string, std::string>& config) {
    auto url = config.find("connection.url");
    return url != config.end() && opens(url->second);
  };
  registry.claim("io.confluent.connect.jdbc.JdbcSinkConnector", name, claim, url_forms);
  registry.claim("io.debezium.connector.jdbc.JdbcSinkConnector", debezium, claim, url_forms);
}

}  // namespace ksink
