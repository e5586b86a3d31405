// The file source against its limit and its peer, in one run: a file of N lines into a topic.
//
//   produce-raw  the limit: this process's librdkafka producer sending the very records ksink's
//                file source produces (each line in Connect's JSON envelope, null key) with the
//                same settings (acks=all, idempotence, murmur2), timed from the first send to the
//                last acknowledgement
//   ksink        `ksink run` with FileStreamSource at its defaults (offsets in a standalone file),
//                from launch to the last record in the topic
//   ksink-eos-poll, ksink-eos-interval
//                the same exactly once (offsets in a topic, in the records' transactions), a
//                transaction per poll() or every 250 ms, to the last committed record
//   connect      Kafka Connect 4.1.1 standalone with Connect's FileStreamSource, the same
//                configuration, JVM defaults (bench/peer/connect-sink.sh,
//                KSINK_PEER_CONNECTOR=file)
//
// Each case writes to a topic of its own (one partition); progress is the topic's end offset,
// polled every 20 ms; CPU and peak RSS (VmHWM) are read from /proc before the process is stopped.
// Rounds alternate the cases; the summary gives each figure's median and the min–max of the
// ratio to the limit.
//
//   source_benchmark [--records N] [--rounds R] [--no-peer] [--ksink-property key=value]...
// The broker: KSINK_TEST_BOOTSTRAP, else one started here (tests/support).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "measurement.h"
#include "process_usage.h"
#include "report.h"
#include "source_process.h"
#include "test_kafka.h"

namespace ksink::bench {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

double since(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// A line of ~100 bytes and the value ksink and Connect write for it.
std::string line(int64_t i) {
  return fmt::format(
      "{:09d} the quick brown fox jumps over the lazy dog, and then some more text "
      "to make it long",
      i);
}
std::string envelope(const std::string& text) {
  return R"({"schema":{"type":"string","optional":false},"payload":")" + text + R"("})";
}

Measurement produceRaw(const std::string& bootstrap, const std::string& topic, int64_t records) {
  std::vector<std::string> values;
  values.reserve(static_cast<size_t>(records));
  double bytes = 0;
  for (int64_t i = 0; i < records; ++i) {
    values.push_back(envelope(line(i)));
    bytes += static_cast<double>(values.back().size());
  }
  RawProducer producer(bootstrap, 16384);
  resetSelfPeakRss();
  const auto before = usageOf(::getpid());
  const auto start = Clock::now();
  for (const auto& v : values) producer.send(topic, std::nullopt, v);
  producer.flush();
  const auto end = Clock::now();
  const auto after = usageOf(::getpid());
  return {"produce-raw",
          records,
          bytes,
          0,
          since(start, end),
          since(start, end),
          records,
          after.cpu_s - before.cpu_s,
          after.peak_rss_kb,
          ""};
}

int run(int argc, char** argv) {
  CLI::App app{"FileStreamSource: ksink against raw librdkafka and Kafka Connect"};
  int64_t records = 500000;
  SourceBenchOptions options;
  app.add_option("--records", records, "lines in the file");
  options.addTo(app, "Kafka Connect");
  CLI11_PARSE(app, argc, argv);

  auto& kafka = it::RealKafka::shared();
  const auto dir = it::freshDir("source-bench");
  const auto file = dir / "input.txt";
  double bytes = 0;
  {
    std::ofstream out(file);
    for (int64_t i = 0; i < records; ++i) {
      const auto l = line(i);
      out << l << '\n';
      bytes += static_cast<double>(envelope(l).size());
    }
  }
  const std::string peer = KSINK_SOURCE_DIR "/bench/peer/connect-sink.sh";
  std::vector<Round> all;
  for (int r = 0; r < options.rounds; ++r) {
    Round round;
    const auto raw_topic = it::uniqueName("src-raw");
    kafka.createTopic(raw_topic, 1);
    round.push_back(produceRaw(kafka.bootstrap(), raw_topic, records));

    const auto topic = it::uniqueName("src-ksink");
    kafka.createTopic(topic, 1);
    round.push_back(runKsinkSource(
        "ksink", dir / fmt::format("ksink-{}", r),
        fmt::format("name={}\nconnector.class=FileStreamSource\nfile={}\ntopic={}\n{}\n", topic,
                    file.string(), topic, fmt::join(options.ksink_properties, "\n")),
        topic, records, bytes, "produce-raw"));
    for (const auto& [eos, worker] : exactlyOnceCases()) {
      const auto eos_topic = it::uniqueName("src-ksink-" + eos);
      kafka.createTopic(eos_topic, 1);
      round.push_back(runKsinkSource(
          "ksink-" + eos, dir / fmt::format("ksink-{}-{}", eos, r),
          fmt::format("name={}\nconnector.class=FileStreamSource\nfile={}\ntopic={}\n{}\n",
                      eos_topic, file.string(), eos_topic,
                      fmt::join(options.ksink_properties, "\n")),
          eos_topic, records, bytes, "produce-raw", worker));
    }

    if (!options.no_peer) {
      const auto peer_topic = it::uniqueName("src-connect");
      kafka.createTopic(peer_topic, 1);
      const auto pwd = dir / fmt::format("connect-{}", r);
      round.push_back(watchSource("connect",
                                  {peer, pwd.string(), kafka.bootstrap(), "name=" + peer_topic,
                                   "connector.class=FileStreamSource", "tasks.max=1",
                                   "file=" + file.string(), "topic=" + peer_topic},
                                  dir / fmt::format("connect-{}.log", r), peer_topic, records,
                                  bytes, "produce-raw", {"KSINK_PEER_CONNECTOR=file"}));
    }
    printRound(fmt::format("round {} of {}: {} lines, {:.1f} MB of values", r + 1, options.rounds,
                           records, bytes / 1e6),
               round);
    all.push_back(std::move(round));
  }
  printSummary(all);
  return 0;
}

}  // namespace
}  // namespace ksink::bench

int main(int argc, char** argv) {
  return ksink::bench::benchmarkMain("source_benchmark", ksink::bench::run, argc, argv);
}
