#include "ksink/db/connection_keys.h"

#include <fmt/format.h>

namespace ksink::db {

ConfigDef connectionKeys(std::string_view when) {
  using Type = ConfigDef::Type;
  using Importance = ConfigDef::Importance;
  const std::string at = when.empty() ? std::string() : fmt::format(" {}", when);
  return ConfigDef()
      .define("connection.user", Type::kString, "", Importance::kHigh,
              "Database user; overrides the one in connection.url")
      .define("connection.password", Type::kPassword, "", Importance::kHigh,
              "Database password; overrides the one in connection.url")
      .define("connection.attempts", Type::kInt, "3", Importance::kLow,
              fmt::format("How many times in a row connecting to the database{} may fail "
                          "(unreachable, or refused: a wrong password) before the task fails",
                          at),
              ConfigDef::atLeast(1))
      .define(
          "connection.backoff.ms", Type::kLong, "10000", Importance::kLow,
          fmt::format("How long to wait after a failed connection attempt{} before the next", at),
          ConfigDef::atLeast(0));
}

}  // namespace ksink::db
