// The file source against its limit and its peer, in one run: a file of N lines into a topic.
//
//   produce-raw  the limit: this process's librdkafka producer sending the very records ksink's
//                file source produces (each line in Connect's JSON envelope, null key) with the
//                same settings (acks=all, idempotence, murmur2), timed from the first send to the
//                last acknowledgement
//   ksink        `ksink run` with FileStreamSource at its defaults (offsets in a standalone file),
//                from launch to the last record in the topic
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
#include <librdkafka/rdkafka.h>
#include <signal.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "child_process.h"
#include "measurement.h"
#include "polling.h"
#include "process_usage.h"
#include "report.h"
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
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [k, v] :
       std::vector<std::pair<std::string, std::string>>{{"bootstrap.servers", bootstrap},
                                                        {"acks", "all"},
                                                        {"enable.idempotence", "true"},
                                                        {"partitioner", "murmur2_random"},
                                                        {"queue.buffering.max.kbytes", "16384"},
                                                        {"message.timeout.ms", "0"}})
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK)
      throw std::runtime_error(err);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!rk) throw std::runtime_error(err);
  resetSelfPeakRss();
  const auto before = usageOf(::getpid());
  const auto start = Clock::now();
  for (const auto& v : values) {
    while (rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic.c_str()),
                             RD_KAFKA_V_VALUE(const_cast<char*>(v.data()), v.size()),
                             RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                             RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR__QUEUE_FULL)
      rd_kafka_poll(rk, 10);
    rd_kafka_poll(rk, 0);
  }
  rd_kafka_flush(rk, 600000);
  const auto end = Clock::now();
  const auto after = usageOf(::getpid());
  rd_kafka_destroy(rk);
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

// Launches `argv`, waits until the topic holds `records`, measures, stops with SIGTERM.
Measurement watch(const std::string& name, std::vector<std::string> argv,
                  const std::filesystem::path& log, const std::string& topic, int64_t records,
                  double bytes, std::vector<std::string> env = {}) {
  if (!env.empty()) {
    env.insert(env.begin(), "/usr/bin/env");
    argv.insert(argv.begin(), env.begin(), env.end());
  }
  auto& kafka = it::RealKafka::shared();
  const auto launched = Clock::now();
  it::ChildProcess process(argv, log);
  const auto timing = it::timeProgress(
      [&] {
        return kafka.endOffset({topic, 0});
      },
      records, [&] { return process.running(); },
      [&] { return fmt::format("{} stopped or stalled:\n{}", name, process.log()); }, 600s, 20ms);
  const auto usage = usageOf(process.pid());
  process.signal(SIGTERM);
  process.wait(60s);
  (void)launched;
  return {name,
          records,
          bytes,
          timing.to_first,
          timing.to_first + timing.seconds,
          timing.seconds,
          timing.units,
          usage.cpu_s,
          usage.peak_rss_kb,
          "produce-raw"};
}

int run(int argc, char** argv) {
  CLI::App app{"FileStreamSource: ksink against raw librdkafka and Kafka Connect"};
  int64_t records = 500000;
  int rounds = 3;
  bool no_peer = false;
  std::vector<std::string> extra;
  app.add_option("--records", records, "lines in the file");
  app.add_option("--rounds", rounds, "rounds");
  app.add_flag("--no-peer", no_peer, "skip Kafka Connect");
  app.add_option("--ksink-property", extra, "key=value added to ksink's connector (to compare)");
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
  for (int r = 0; r < rounds; ++r) {
    Round round;
    const auto raw_topic = it::uniqueName("src-raw");
    kafka.createTopic(raw_topic, 1);
    round.push_back(produceRaw(kafka.bootstrap(), raw_topic, records));

    const auto topic = it::uniqueName("src-ksink");
    kafka.createTopic(topic, 1);
    const auto wd = dir / fmt::format("ksink-{}", r);
    std::filesystem::create_directories(wd);
    std::ofstream(wd / "worker.properties")
        << fmt::format("bootstrap.servers={}\noffset.storage.file.filename={}\nlisteners=\n",
                       kafka.bootstrap(), (wd / "offsets").string());
    std::ofstream(wd / "source.properties")
        << fmt::format("name={}\nconnector.class=FileStreamSource\nfile={}\ntopic={}\n{}\n", topic,
                       file.string(), topic, fmt::join(extra, "\n"));
    round.push_back(watch("ksink",
                          {KSINK_BIN, "run", (wd / "worker.properties").string(),
                           (wd / "source.properties").string()},
                          wd / "ksink.log", topic, records, bytes));

    if (!no_peer) {
      const auto peer_topic = it::uniqueName("src-connect");
      kafka.createTopic(peer_topic, 1);
      const auto pwd = dir / fmt::format("connect-{}", r);
      round.push_back(watch("connect",
                            {peer, pwd.string(), kafka.bootstrap(), "name=" + peer_topic,
                             "connector.class=FileStreamSource", "tasks.max=1",
                             "file=" + file.string(), "topic=" + peer_topic},
                            dir / fmt::format("connect-{}.log", r), peer_topic, records, bytes,
                            {"KSINK_PEER_CONNECTOR=file"}));
    }
    printRound(fmt::format("round {} of {}: {} lines, {:.1f} MB of values", r + 1, rounds, records,
                           bytes / 1e6),
               round);
    all.push_back(std::move(round));
  }
  printSummary(all);
  return 0;
}

}  // namespace
}  // namespace ksink::bench

int main(int argc, char** argv) {
  try {
    return ksink::bench::run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "source_benchmark: {}\n", e.what());
    return 1;
  }
}
