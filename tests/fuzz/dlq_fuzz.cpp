// Fuzz target: the errant-record path with arbitrary keys, values and headers (NUL bytes, invalid
// UTF-8, huge values), written to the dead-letter queue of an embedded mock cluster. Input layout:
// [flags][key len][header name len][header value len] then the bytes, split in that order.
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "ksink/conversion_error.h"
#include "worker_errant_record_reporter.h"

namespace {

struct Fixture {
  rd_kafka_t* host = nullptr;
  std::unique_ptr<ksink::WorkerErrantRecordReporter> reporter;
  int sent = 0;

  Fixture() {
    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "test.mock.num.brokers", "1", err, sizeof err);
    rd_kafka_conf_set(conf, "log_level", "0", err, sizeof err);
    host = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    auto* cluster = rd_kafka_handle_mock_cluster(host);
    rd_kafka_mock_topic_create(cluster, "dlq", 1, 1);
    ksink::ErrorsConfig config;
    config.handling.tolerate_all = true;
    config.dlq_topic = "dlq";
    config.dlq_replication_factor = 1;
    config.dlq_context_headers = true;
    config.producer_properties = {{"bootstrap.servers", rd_kafka_mock_cluster_bootstraps(cluster)},
                                  {"log_level", "0"}};
    reporter = std::make_unique<ksink::WorkerErrantRecordReporter>(config, "fuzz", "fuzz-sink", 0,
                                                                   std::chrono::seconds(30));
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture fixture;
  if (size < 4) return 0;
  const uint8_t flags = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data + 4), size - 4);
  auto take = [&rest](size_t n) {
    n = std::min(n, rest.size());
    auto part = rest.substr(0, n);
    rest.remove_prefix(n);
    return part;
  };
  const auto key = take(data[1]);
  const auto header_name = take(data[2]);
  const auto header_value = take(data[3]);
  const auto value = rest;
  std::vector<ksink::Header> headers;
  if (flags & 1)
    headers.push_back({header_name, flags & 2 ? std::nullopt : std::optional(header_value)});
  ksink::SinkRecord record("orders", flags >> 4, static_cast<int64_t>(size), std::nullopt,
                           flags & 4 ? std::nullopt : std::optional(key),
                           flags & 8 ? std::nullopt : std::optional(value), std::move(headers));
  const std::string message(value.substr(0, 64));
  if (flags & 2)
    fixture.reporter->report(record, ksink::ConversionError(message));
  else
    fixture.reporter->report(record, std::runtime_error(message));
  if (++fixture.sent % 256 == 0 &&
      fixture.reporter->awaitDelivered() != ksink::ErrantRecordReporter::Delivery::kDelivered)
    __builtin_trap();  // a DLQ write was lost
  return 0;
}
