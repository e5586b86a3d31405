// Sink conversion benchmark: the CPU the runtime spends per record before put() for a task that
// does not convert records itself (SinkRecordConversion: converters, headers, transforms=), beside
// the floor, a task that converts itself (the batch handed over as consumed), on batches of 10000
// of the pipeline benchmark's rows.
//
//   bench/sink_conversion_benchmark [--benchmark_repetitions=5]
#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

#include "bench_data.h"
#include "clock.h"
#include "fetched_records.h"
#include "ksink/sink_task.h"
#include "sink_connector_config.h"
#include "sink_record_conversion.h"
#include "stage_retry.h"
#include "task_metrics.h"

namespace ksink::bench {
namespace {

constexpr int64_t kBatch = 10000;

// `extra`: the connector's converter and transform keys; empty with `converts_itself`.
void convertBatches(benchmark::State& state, std::map<std::string, std::string> extra,
                    bool converts_itself) {
  std::vector<std::string> keys, values;
  for (const auto& row : orderRows(kBatch)) {
    keys.push_back(std::to_string(row.id));
    values.push_back(schemalessJson(row));
  }
  std::map<std::string, std::string> props{
      {"name", "bench"}, {"bootstrap.servers", "127.0.0.1:1"}, {"topics", "orders"}};
  props.insert(extra.begin(), extra.end());
  const Config config(props);
  const auto settings = SinkConnectorConfig::parse(config);
  TaskMetrics metrics;
  WorkerBatch batch;
  StageRetry retry(settings.retry_timeout, settings.retry_delay_max, metrics.total_retries);
  SinkRecordConversion conversion(config, batch, nullptr, retry);  // tolerating no failure
  size_t put = 0;
  for (auto _ : state) {
    state.PauseTiming();
    batch.clear();
    for (int64_t i = 0; i < kBatch; ++i)
      batch.records.emplace_back("orders", 0, i, 1700000000000, keys[i], values[i]);
    state.ResumeTiming();
    const auto records =
        converts_itself ? std::span<const SinkRecord>(batch.records) : conversion.convert();
    put += records.size();
    benchmark::DoNotOptimize(records.data());
  }
  if (put != static_cast<size_t>(state.iterations() * kBatch))
    state.SkipWithError("records were lost in the conversion");
  state.SetItemsProcessed(state.iterations() * kBatch);
}

void BM_ConvertsItself(benchmark::State& state) {
  convertBatches(state, {}, true);
}
void BM_DefaultBytes(benchmark::State& state) {
  convertBatches(state, {}, false);
}
void BM_JsonSchemaless(benchmark::State& state) {
  convertBatches(state,
                 {{"key.converter", "string"},
                  {"value.converter", "json"},
                  {"value.converter.schemas.enable", "false"}},
                 false);
}
void BM_JsonSchemalessInsertField(benchmark::State& state) {
  convertBatches(
      state,
      {{"key.converter", "string"},
       {"value.converter", "json"},
       {"value.converter.schemas.enable", "false"},
       {"transforms", "source"},
       {"transforms.source.type", "org.apache.kafka.connect.transforms.InsertField$Value"},
       {"transforms.source.static.field", "source"},
       {"transforms.source.static.value", "ksink"}},
      false);
}

BENCHMARK(BM_ConvertsItself)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DefaultBytes)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_JsonSchemaless)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_JsonSchemalessInsertField)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace ksink::bench

BENCHMARK_MAIN();
