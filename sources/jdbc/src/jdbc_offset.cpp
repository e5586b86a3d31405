#include "jdbc_offset.h"

#include <fmt/format.h>

#include <stdexcept>

namespace ksink::jdbc {
namespace {

std::optional<int64_t> wholeNumber(const SourceMap& map, std::string_view key) {
  for (const auto& [k, v] : map) {
    if (k != key || v.isNull()) continue;
    if (v.kind() != Value::Kind::kInt)
      throw std::runtime_error(
          fmt::format("the stored offset {} has a \"{}\" that is not a whole "
                      "number",
                      Value::object(map).toJson(), key));
    return v.asInt();
  }
  return std::nullopt;
}

}  // namespace

SourceMap JdbcOffset::toMap() const {
  SourceMap map;
  if (timestamp) map.emplace_back("timestamp_nanos", Value::integer(timestamp->nanos));
  if (incrementing) map.emplace_back("incrementing", Value::integer(*incrementing));
  if (timestamp) map.emplace_back("timestamp", Value::integer(timestamp->epochMillis()));
  return map;
}

JdbcOffset JdbcOffset::fromMap(const SourceMap& map) {
  JdbcOffset out;
  out.incrementing = wholeNumber(map, "incrementing");
  if (const auto millis = wholeNumber(map, "timestamp")) {
    // As java.sql.Timestamp(millis) then setNanos(nanos): the second from the milliseconds, the
    // fraction from the nanoseconds when they are there.
    out.timestamp = Instant::fromEpochMillis(*millis);
    if (const auto nanos = wholeNumber(map, "timestamp_nanos")) {
      if (*nanos < 0 || *nanos > 999999999)
        throw std::runtime_error(
            fmt::format("the stored offset {} has a timestamp_nanos out of "
                        "range",
                        Value::object(map).toJson()));
      out.timestamp->nanos = static_cast<int32_t>(*nanos);
    }
  }
  return out;
}

SourceMap tablePartition(const std::string& fqn) {
  return {{"protocol", Value::string("1")}, {"table", Value::string(fqn)}};
}

SourceMap legacyTablePartition(const std::string& table) {
  return {{"table", Value::string(table)}};
}

SourceMap queryPartition() {
  return {{"query", Value::string("query")}};
}

}  // namespace ksink::jdbc
