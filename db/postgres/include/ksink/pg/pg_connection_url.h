// PgConnectionUrl: the sink's connection.url, as libpq connection parameters.
//
// Accepts what a Confluent JDBC sink user already has: `jdbc:postgresql://host[:port][,host2...]
// /db?user=..&password=..&sslmode=..` (JDBC properties libpq knows are translated, the others
// reported as ignored), and everything libpq itself accepts: `postgresql://` / `postgres://` URIs
// and `key=value` conninfo strings. Immutable value type.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ksink/pg/pg_connection.h"

namespace ksink::postgres {

class PgConnectionUrl {
 public:
  // Throws std::invalid_argument with the reason when the URL cannot be parsed.
  explicit PgConnectionUrl(std::string_view url);
  // Whether `url` is one this class parses (the JDBC sink classes' claim).
  static bool accepts(std::string_view url);

  // The parameters to connect with: ksink's defaults (application_name, connect_timeout,
  // keepalives), then the URL's, then `user` / `password` when non-empty (connection.user /
  // connection.password win over the URL, as the JDBC sink's do), then client_encoding=UTF8,
  // as pgjdbc always sets it (a URL naming another client_encoding is refused).
  ConnectionParams params(const std::string& user, const std::string& password) const;
  // JDBC properties with no libpq equivalent (e.g. reWriteBatchedInserts), for a warning.
  const std::vector<std::string>& ignoredProperties() const { return ignored_; }

 private:
  ConnectionParams url_params_;
  std::vector<std::string> ignored_;
};

}  // namespace ksink::postgres
