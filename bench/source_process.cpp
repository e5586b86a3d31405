#include "source_process.h"

#include <fmt/format.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "child_process.h"
#include "polling.h"
#include "process_usage.h"
#include "test_kafka.h"

namespace ksink::bench {
namespace {

using namespace std::chrono_literals;

std::atomic<int64_t> failed_deliveries{0};

void onDelivery(rd_kafka_t*, const rd_kafka_message_t* m, void*) {
  if (m->err) failed_deliveries.fetch_add(1);
}

}  // namespace

int benchmarkMain(const char* name, int (*run)(int, char**), int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: {}\n", name, e.what());
    return 1;
  }
}

RawProducer::RawProducer(const std::string& bootstrap, int queue_kbytes) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"bootstrap.servers", bootstrap},
           {"acks", "all"},
           {"enable.idempotence", "true"},
           {"partitioner", "murmur2_random"},
           {"queue.buffering.max.kbytes", std::to_string(queue_kbytes)},
           {"message.timeout.ms", "0"}})
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      throw std::runtime_error(err);
    }
  rd_kafka_conf_set_dr_msg_cb(conf, onDelivery);
  rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!rk_) throw std::runtime_error(err);
}

RawProducer::~RawProducer() {
  rd_kafka_destroy(rk_);
}

void RawProducer::send(const std::string& topic, std::optional<std::string_view> key,
                       std::string_view value) {
  // librdkafka's macros cast their arguments unparenthesised: plain variables only.
  void* key_data = key ? const_cast<char*>(key->data()) : nullptr;
  const size_t key_size = key ? key->size() : 0;
  void* value_data = const_cast<char*>(value.data());
  const size_t value_size = value.size();
  while (rd_kafka_producev(rk_, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_KEY(key_data, key_size),
                           RD_KAFKA_V_VALUE(value_data, value_size),
                           RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                           RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR__QUEUE_FULL)
    rd_kafka_poll(rk_, 10);
  rd_kafka_poll(rk_, 0);
}

void RawProducer::flush() {
  if (rd_kafka_flush(rk_, 600000) != RD_KAFKA_RESP_ERR_NO_ERROR)
    throw std::runtime_error("the limit's producer did not drain in 10 minutes");
  if (const auto failed = failed_deliveries.exchange(0))
    throw std::runtime_error(fmt::format("the limit's producer lost {} records", failed));
}

Measurement watchSource(const std::string& name, std::vector<std::string> argv,
                        const std::filesystem::path& log, const std::string& topic, int64_t records,
                        double bytes, const std::string& limit, std::vector<std::string> env) {
  if (!env.empty()) {
    env.insert(env.begin(), "/usr/bin/env");
    argv.insert(argv.begin(), env.begin(), env.end());
  }
  auto& kafka = it::RealKafka::shared();
  it::ChildProcess process(argv, log);
  const auto timing = it::timeProgress(
      [&] {
        return kafka.endOffset({topic, 0});
      },
      records, [&] { return process.running(); },
      [&] { return fmt::format("{} stopped or stalled:\n{}", name, process.log()); }, 900s, 20ms);
  const auto usage = usageOf(process.pid());
  process.signal(SIGTERM);
  process.wait(60s);
  return watchedMeasurement(name, records, bytes, timing, usage, limit);
}

Measurement runKsinkSource(const std::string& name, const std::filesystem::path& dir,
                           const std::string& connector, const std::string& topic, int64_t records,
                           double bytes, const std::string& limit,
                           const std::string& worker_extra) {
  std::filesystem::create_directories(dir);
  const auto offsets =
      worker_extra.empty()
          ? fmt::format("offset.storage.file.filename={}\n", (dir / "offsets").string())
          : fmt::format("offset.storage.topic={}-offsets\noffset.storage.replication.factor=1\n{}",
                        topic, worker_extra);
  std::ofstream(dir / "worker.properties") << fmt::format(
      "bootstrap.servers={}\n{}listeners=\n", it::RealKafka::shared().bootstrap(), offsets);
  std::ofstream(dir / "source.properties") << connector;
  return watchSource(name,
                     {KSINK_BIN, "run", (dir / "worker.properties").string(),
                      (dir / "source.properties").string()},
                     dir / "ksink.log", topic, records, bytes, limit);
}

}  // namespace ksink::bench
