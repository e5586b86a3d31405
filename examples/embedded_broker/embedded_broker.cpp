// ksink-embedded-broker: librdkafka's in-process mock Kafka cluster as a small server, for the demo
// and for trying ksink without installing Kafka. Creates a topic, optionally fills it with sample
// order records (schemaless JSON), prints the bootstrap address on stdout, and serves until
// SIGTERM/SIGINT. Not a real broker: no disk, 5 MiB per partition, random port.
//
//   ksink-embedded-broker --topic orders --partitions 3 --records 1000
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace {

volatile std::sig_atomic_t g_stop = 0;

void produceSamples(rd_kafka_t* producer, const std::string& topic, int partitions, int count) {
  static const char* kCustomers[] = {"ada", "grace", "linus", "barbara", "ken"};
  for (int i = 0; i < count; ++i) {
    const std::string key = fmt::format("order-{}", i);
    const std::string value = fmt::format(
        R"({{"id":{},"customer":"{}","amount":{:.2f},"quantity":{},"paid":{},"created_at":"2026-11-30T12:{:02}:{:02}Z"}})",
        i, kCustomers[i % 5], 5.0 + (i * 37 % 1000) / 10.0, 1 + i % 7,
        i % 3 == 0 ? "false" : "true", (i / 60) % 60, i % 60);
    while (rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(topic.c_str()),
                             RD_KAFKA_V_PARTITION(i % partitions),
                             RD_KAFKA_V_KEY(key.data(), key.size()),
                             RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                             RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                             RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR__QUEUE_FULL)
      rd_kafka_poll(producer, 50);
  }
  if (rd_kafka_flush(producer, 30000)) throw std::runtime_error("flushing sample records timed out");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"An embedded (mock) Kafka cluster for demos and tries"};
  std::string topic = "orders";
  int partitions = 3, records = 0, brokers = 1;
  app.add_option("--topic", topic, "Topic to create");
  app.add_option("--partitions", partitions, "Partitions of the topic")->check(CLI::PositiveNumber);
  app.add_option("--records", records, "Sample records to produce into it");
  app.add_option("--brokers", brokers, "Brokers in the cluster")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  const auto n = std::to_string(brokers);
  rd_kafka_conf_set(conf, "test.mock.num.brokers", n.c_str(), err, sizeof err);
  rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err);
  rd_kafka_t* producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!producer) {
    fmt::print(stderr, "cannot start the embedded broker: {}\n", err);
    return 1;
  }
  rd_kafka_mock_cluster_t* cluster = rd_kafka_handle_mock_cluster(producer);
  rd_kafka_mock_topic_create(cluster, topic.c_str(), partitions, 1);
  try {
    produceSamples(producer, topic, partitions, records);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 1;
  }
  fmt::print("{}\n", rd_kafka_mock_cluster_bootstraps(cluster));
  std::fflush(stdout);

  std::signal(SIGTERM, [](int) { g_stop = 1; });
  std::signal(SIGINT, [](int) { g_stop = 1; });
  while (!g_stop) rd_kafka_poll(producer, 200);
  rd_kafka_destroy(producer);
  return 0;
}
