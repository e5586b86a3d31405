// End-to-end latency: records produced at a steady rate into a fresh topic while a sink (ksink or
// the peer) runs on it; a poller sees committed rows every few milliseconds and each row's latency
// is (first poll that saw it − the moment it was handed to the producer). Rows go to partition
// id % P in id order, so within a partition the committed rows are a prefix and "committed" is
// max(id) per partition, read through an index on (id % P, id).
#pragma once

#include <cstdint>
#include <string>

#include "sink_process.h"
#include "test_kafka.h"
#include "test_postgres.h"

namespace ksink::bench {

struct LatencySettings {
  int rate = 20000;  // records per second
  int seconds = 20;
  int partitions = 6;
};

struct LatencyResult {
  std::string name;
  int64_t samples = 0;
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
};

// `sink` must write to PostgreSQL (ksink postgres or the peer).
LatencyResult measureLatency(const SinkCase& sink, const SinkSettings& settings,
                             const LatencySettings& load, it::RealKafka& kafka,
                             it::PgTestSchema& schema);

}  // namespace ksink::bench
