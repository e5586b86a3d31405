// What the source benchmarks share: the limit's producer — raw librdkafka with the settings
// ksink's source producer has (acks=all, idempotence, murmur2, no delivery timeout) — and a
// source process (ksink or a peer) launched, watched until its topic holds every record, measured
// (CPU, peak RSS from /proc before it exits) and stopped with SIGTERM.
#pragma once

#include <librdkafka/rdkafka.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "measurement.h"

namespace ksink::bench {

class RawProducer {
 public:
  // `queue_kbytes`: librdkafka's queue.buffering.max.kbytes.
  RawProducer(const std::string& bootstrap, int queue_kbytes);
  ~RawProducer();
  RawProducer(const RawProducer&) = delete;
  RawProducer& operator=(const RawProducer&) = delete;

  // Copies the record into the queue, waiting while the queue is full; partition by murmur2.
  void send(const std::string& topic, std::optional<std::string_view> key, std::string_view value);
  // Waits for every acknowledgement; throws if any delivery failed.
  void flush();

 private:
  rd_kafka_t* rk_ = nullptr;
};

// Launches `argv` (with `env`, NAME=value, through /usr/bin/env), waits until partition 0 of
// `topic` holds `records`, measures, stops. The measurement is judged against `limit`.
Measurement watchSource(const std::string& name, std::vector<std::string> argv,
                        const std::filesystem::path& log, const std::string& topic, int64_t records,
                        double bytes, const std::string& limit, std::vector<std::string> env = {});

}  // namespace ksink::bench
