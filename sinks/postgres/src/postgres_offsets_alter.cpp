#include "postgres_offsets_alter.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <stdexcept>
#include <string>

#include "ksink/pg/pg_connection.h"
#include "ksink/pg/pg_connection_url.h"
#include "ksink/pg/pg_error.h"
#include "pg_sql.h"
#include "pg_transaction.h"
#include "postgres_sink_config.h"

namespace ksink::postgres {

void alterPostgresOffsets(const Config& config, const std::optional<OffsetMap>& offsets) {
  const auto settings = PostgresSinkConfig::parse(config);
  const auto& connector = settings.table.connector_name;
  const auto where = Config::redactPasswords(settings.connection_url);
  try {
    auto c =
        PgConnection::open(PgConnectionUrl(settings.connection_url)
                               .params(settings.connection_user, settings.connection_password));
    if (!offsets) {
      auto exists = c.exec(PgSql::offsetsTableExists());
      if (std::string(PQgetvalue(exists.get(), 0, 0)) != "t") {
        spdlog::info("postgres sink: {} has no ksink_offsets table: no stored offsets to forget",
                     where);
        return;
      }
      auto deleted = c.execParams(PgSql::deleteOffsets(), {connector});
      spdlog::info("postgres sink: deleted {} row(s) of connector {} from ksink_offsets in {}",
                   PgConnection::affectedRows(deleted.get()), connector, where);
      return;
    }
    try {
      c.exec(PgSql::createOffsetsTable());
    } catch (const PgError& e) {
      if (!e.createdByAnother()) throw;
    }
    PgTransaction txn(c);
    for (const auto& [tp, offset] : *offsets)
      c.execParams(PgSql::upsertOffset(),
                   {connector, tp.topic, std::to_string(tp.partition), std::to_string(offset)});
    txn.commit();
    spdlog::info("postgres sink: set {} row(s) of connector {} in ksink_offsets in {}",
                 offsets->size(), connector, where);
  } catch (const PgError& e) {
    throw std::runtime_error(fmt::format("PostgreSQL at {}: {}", where, e.what()));
  }
}

}  // namespace ksink::postgres
