#include "ksink/db/connection_keys.h"

namespace ksink::db {

const ConfigDef& connectionKeys() {
  using Type = ConfigDef::Type;
  using Importance = ConfigDef::Importance;
  static const ConfigDef def =
      ConfigDef()
          .define("connection.user", Type::kString, "", Importance::kHigh,
                  "Database user; overrides the one in connection.url")
          .define("connection.password", Type::kPassword, "", Importance::kHigh,
                  "Database password; overrides the one in connection.url")
          .define("connection.attempts", Type::kInt, "3", Importance::kLow,
                  "How many times in a row connecting to the database may fail (unreachable, or "
                  "refused: a wrong password) before the task fails",
                  ConfigDef::atLeast(1))
          .define("connection.backoff.ms", Type::kLong, "10000", Importance::kLow,
                  "How long to wait after a failed connection attempt before the next",
                  ConfigDef::atLeast(0));
  return def;
}

}  // namespace ksink::db
