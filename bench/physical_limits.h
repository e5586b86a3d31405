// The physical limits ksink is judged against, each measured in this process on the same broker,
// server and rows as the ksink cases, with the least client code that does the job:
//   pg-binary-copy     COPY t FROM STDIN (FORMAT binary) of rows encoded before the clock starts,
//                      split over `connections` connections, one thread and one transaction each;
//   pg-staging-upsert  per connection: binary COPY into a TEMP table, then INSERT INTO t SELECT …
//                      ON CONFLICT (id) DO UPDATE, commit;
//   kafka-raw          a librdkafka high-level consumer in a group reading the whole topic,
//                      from subscribe to the last record;
//   sqlite-raw         one prepared INSERT stepped over every row in one transaction.
// CPU and peak RSS are this process's (its pre-encoded rows included), not the server's.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bench_data.h"
#include "measurement.h"

namespace ksink::bench {

// `table` exists and is empty; for the upsert it has PRIMARY KEY (id).
Measurement pgBinaryCopy(const std::string& url, const std::string& table,
                         const std::vector<OrderRow>& rows, int connections);
Measurement pgStagingUpsert(const std::string& url, const std::string& table,
                            const std::vector<OrderRow>& rows, int connections);

// `overrides` are librdkafka properties on top of its defaults (none for the limit).
Measurement kafkaRaw(const std::string& bootstrap, const BenchTopic& topic, int64_t records,
                     const std::map<std::string, std::string>& overrides = {});

// Creates the table in a new database file (WAL, synchronous=FULL, as the sink opens it).
Measurement sqliteRaw(const std::filesystem::path& file, const std::vector<OrderRow>& rows);

}  // namespace ksink::bench
