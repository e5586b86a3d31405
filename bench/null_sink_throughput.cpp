// Null-sink throughput: how close the worker gets to raw librdkafka consumption of the same topic
// on the same broker. Both read with rd_kafka_consumer_poll in a consumer group from a real Kafka
// broker; the clock runs from the first record to the last (group join excluded). The raw
// consumer runs twice: with librdkafka's defaults, and with the prefetch bound the worker sets
// (queued.min.messages=10000000: librdkafka 2.0.2 otherwise stalls for up to a second whenever
// the consumer drains its 100000 prefetched messages). Peak RSS is reset before each run.
// The worker runs twice too: a null sink that converts records itself (it gets them as consumed)
// and one the runtime converts for (ByteArrayConverter, the default where none is named: each
// record's converted() built before put()).
//
//   bench/null_sink_throughput [--records N] [--partitions P] [--value-bytes B] [--rounds R]
//
// The broker is KSINK_BENCH_BOOTSTRAP, or one started for the run with integration/kafka/start.sh.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "ksink/ksink.h"
#include "physical_limits.h"
#include "process_usage.h"
#include "test_kafka.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Run {
  double seconds = 0;
  int64_t peak_rss_kb = 0;
};

// The raw consumer is kafkaRaw (physical_limits.h): its clock from the first record to the last.
Run rawConsume(const std::string& bootstrap, const std::string& topic, int64_t records,
               bool worker_prefetch) {
  std::map<std::string, std::string> overrides;
  if (worker_prefetch) overrides["queued.min.messages"] = "10000000";
  const auto m = ksink::bench::kafkaRaw(bootstrap, {topic, 0}, records, overrides);
  return {m.steady_s, m.peak_rss_kb};
}

class NullSink : public ksink::SinkTask {
 public:
  NullSink(std::atomic<int64_t>& count, std::atomic<int64_t>& first_ns, bool converts_itself)
      : count_(count), first_ns_(first_ns), converts_itself_(converts_itself) {}
  bool convertsRecords() const override { return converts_itself_; }
  void start(const ksink::Config&) override {}
  void put(std::span<const ksink::SinkRecord> records) override {
    if (records.empty()) return;
    int64_t expected = 0;
    first_ns_.compare_exchange_strong(expected, Clock::now().time_since_epoch().count());
    size_t bytes = 0;
    for (const auto& r : records) bytes += r.value() ? r.value()->size() : 0;
    bytes_ += bytes;
    count_ += static_cast<int64_t>(records.size());
  }
  void stop() override {}

 private:
  std::atomic<int64_t>& count_;
  std::atomic<int64_t>& first_ns_;
  const bool converts_itself_;
  size_t bytes_ = 0;
};

Run workerConsume(const std::string& bootstrap, const std::string& topic, int64_t records,
                  bool converts_itself) {
  ksink::bench::resetSelfPeakRss();
  std::atomic<int64_t> count{0}, first_ns{0};
  ksink::Worker worker(
      ksink::Config(
          std::map<std::string, std::string>{{"name", ksink::it::uniqueName("bench-null")},
                                             {"bootstrap.servers", bootstrap},
                                             {"topics", topic},
                                             {"offset.flush.interval.ms", "5000"}}),
      [&] { return std::make_unique<NullSink>(count, first_ns, converts_itself); });
  std::thread runner([&] { worker.run(); });
  while (count < records) std::this_thread::sleep_for(std::chrono::microseconds(200));
  const auto last = Clock::now();
  const auto status = worker.status();
  if (!status.tasks.empty() && status.tasks[0].counters.sink &&
      status.tasks[0].counters.sink->put_batch_count > 0)
    fmt::print("  (worker: {:.0f} records per put() on average)\n",
               double(status.tasks[0].counters.sink->sink_record_send_total) /
                   double(status.tasks[0].counters.sink->put_batch_count));
  worker.stop();
  runner.join();
  const Clock::time_point first{Clock::duration(first_ns.load())};
  return {std::chrono::duration<double>(last - first).count(),
          ksink::bench::usageOf(::getpid()).peak_rss_kb};
}

// The median run by time, with the largest peak RSS seen in any round.
Run median(std::vector<Run> runs) {
  std::sort(runs.begin(), runs.end(), [](auto& a, auto& b) { return a.seconds < b.seconds; });
  Run out = runs[runs.size() / 2];
  for (const auto& r : runs) out.peak_rss_kb = std::max(out.peak_rss_kb, r.peak_rss_kb);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ksink null-sink throughput vs raw librdkafka"};
  int64_t records = 2'000'000;
  int partitions = 6, value_bytes = 100, rounds = 3;
  app.add_option("--records", records);
  app.add_option("--partitions", partitions);
  app.add_option("--value-bytes", value_bytes);
  app.add_option("--rounds", rounds);
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);

  std::unique_ptr<ksink::it::KafkaBrokerProcess> own;
  std::string bootstrap;
  if (const char* env = std::getenv("KSINK_BENCH_BOOTSTRAP"); env && *env) {
    bootstrap = env;
  } else {
    own = std::make_unique<ksink::it::KafkaBrokerProcess>(ksink::it::freshDir("ksink-bench-kafka"));
    bootstrap = own->start();
  }
  ksink::it::RealKafka kafka(bootstrap);
  const auto topic = ksink::it::uniqueName("bench");
  kafka.createTopic(topic, partitions);
  const std::string value(static_cast<size_t>(value_bytes), 'x');
  std::vector<ksink::it::RealKafka::Message> batch;
  for (int64_t i = 0; i < records; ++i) {
    batch.push_back({static_cast<int>(i % partitions), std::nullopt, value});
    if (batch.size() == 100000 || i + 1 == records) {
      kafka.produce(topic, batch);
      batch.clear();
    }
  }

  std::vector<Run> raw, tuned, sdk, converted;
  for (int r = 0; r < rounds; ++r) {
    raw.push_back(rawConsume(bootstrap, topic, records, false));
    tuned.push_back(rawConsume(bootstrap, topic, records, true));
    sdk.push_back(workerConsume(bootstrap, topic, records, true));
    converted.push_back(workerConsume(bootstrap, topic, records, false));
    fmt::print(
        "round {}: raw {:.0f} rec/s, raw with the worker's prefetch {:.0f} rec/s, ksink null "
        "sink {:.0f} rec/s, converted by the runtime {:.0f} rec/s\n",
        r + 1, records / raw.back().seconds, records / tuned.back().seconds,
        records / sdk.back().seconds, records / converted.back().seconds);
  }
  const Run raw_m = median(raw), tuned_m = median(tuned), sdk_m = median(sdk),
            converted_m = median(converted);
  auto row = [&](const char* name, const Run& run) {
    fmt::print("{:<44}{:>14}{:>12}\n", name, fmt::format("{:.0f} rec/s", records / run.seconds),
               fmt::format("{} MiB", run.peak_rss_kb / 1024));
  };
  fmt::print("\n{} records x {} B, {} partitions, median of {} rounds (peak RSS: largest round)\n",
             records, value_bytes, partitions, rounds);
  row("raw librdkafka consumer, defaults", raw_m);
  row("raw librdkafka consumer, worker's prefetch", tuned_m);
  row("ksink worker, null sink", sdk_m);
  row("ksink worker, null sink, records converted", converted_m);
  fmt::print("{:<44}{:>14.2f}\n", "ratio to raw with the same prefetch (aim >= 0.9)",
             tuned_m.seconds / sdk_m.seconds);
  fmt::print("{:<44}{:>14.2f}\n", "ratio to raw with librdkafka's defaults",
             raw_m.seconds / sdk_m.seconds);
  fmt::print("{:<44}{:>14.2f}\n", "converted records, ratio to raw (same prefetch)",
             tuned_m.seconds / converted_m.seconds);
  return 0;
}
