// What the source benchmarks share: the limit's producer — raw librdkafka with the settings
// ksink's source producer has (acks=all, idempotence, murmur2, no delivery timeout) — and a
// source process (ksink or a peer) launched, watched until its topic holds every record, measured
// (CPU, peak RSS from /proc before it exits) and stopped with SIGTERM.
#pragma once

#include <librdkafka/rdkafka.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "measurement.h"

namespace ksink::bench {

// What both source benchmarks take besides their size: --rounds, --no-peer, --ksink-property.
struct SourceBenchOptions {
  int rounds = 3;
  bool no_peer = false;
  std::vector<std::string> ksink_properties;  // key=value lines added to ksink's connectors

  void addTo(CLI::App& app, const std::string& peer) {
    app.add_option("--rounds", rounds, "rounds");
    app.add_flag("--no-peer", no_peer, "skip " + peer);
    app.add_option("--ksink-property", ksink_properties,
                   "key=value added to ksink's connectors (to compare)");
  }
};

// A benchmark's main: runs `run`, printing what it threw.
int benchmarkMain(const char* name, int (*run)(int, char**), int argc, char** argv);

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

// `ksink run` with `connector` (a .properties text) and a standalone worker (offsets in a file),
// in `dir`, watched as above. `worker_extra` (key=value lines; exactly-once keys) puts the offsets
// in a topic of the run's own instead, as exactly-once needs: the end offset the run watches then
// counts one transaction marker per committed transaction besides the records (the last record is
// seen that many offsets early: a few hundred in a million).
Measurement runKsinkSource(const std::string& name, const std::filesystem::path& dir,
                           const std::string& connector, const std::string& topic, int64_t records,
                           double bytes, const std::string& limit,
                           const std::string& worker_extra = "");

// The worker keys of the exactly-once cases the source benchmarks add beside at-least-once:
// transaction.boundary=poll, and interval every 250 ms.
inline const std::vector<std::pair<std::string, std::string>>& exactlyOnceCases() {
  static const std::vector<std::pair<std::string, std::string>> cases{
      {"eos-poll", "exactly.once.source.support=enabled\ntransaction.boundary=poll\n"},
      {"eos-interval",
       "exactly.once.source.support=enabled\ntransaction.boundary=interval\n"
       "transaction.boundary.interval.ms=250\n"}};
  return cases;
}

}  // namespace ksink::bench
