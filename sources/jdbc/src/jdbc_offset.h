// The JDBC source's offsets, as Confluent's writes them, so that offsets it left in a Connect
// offsets topic (or standalone file) are resumed here, and the reverse:
//   partition, table mode:  {"protocol":"1","table":"<fully qualified name, unquoted>"} — Java's
//                           HashMap puts "protocol" first — and before protocol 1 (legacy, read
//                           as a fallback) {"table":"<table name>"};
//   partition, query mode:  {"query":"query"};
//   offset:                 {"timestamp_nanos":ns,"incrementing":n,"timestamp":ms}, each entry
//                           present only for the columns the mode uses, in the order Java's
//                           HashMap of capacity 4 iterates them (TimestampIncrementingOffset's
//                           `new HashMap<>(3)`); numbers as Java longs. "timestamp" counts
//                           milliseconds since the epoch (java.sql.Timestamp.getTime(), so it
//                           includes the fraction's milliseconds), "timestamp_nanos" the
//                           nanoseconds of its second (getNanos()).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ksink/source_record.h"
#include "sql_time.h"

namespace ksink::jdbc {

struct JdbcOffset {
  std::optional<Instant> timestamp;
  std::optional<int64_t> incrementing;

  SourceMap toMap() const;
  // What a stored offset holds (entries missing: not in use); throws std::runtime_error naming
  // the offset when an entry is not a whole number.
  static JdbcOffset fromMap(const SourceMap& map);

  friend bool operator==(const JdbcOffset&, const JdbcOffset&) = default;
};

// Protocol 1's partition of a table: `fqn` is its unquoted qualified name.
SourceMap tablePartition(const std::string& fqn);
// The legacy partition of a table (its bare name), read when protocol 1's has no offset.
SourceMap legacyTablePartition(const std::string& table);
SourceMap queryPartition();

}  // namespace ksink::jdbc
