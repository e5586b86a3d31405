// Converter benchmark: the CPU one record's value costs in the JSON converter, envelope (Kafka
// Connect's {"schema": …, "payload": …}) beside schemaless, on the pipeline benchmark's rows.
// The schemaless figure is the envelope's floor: the same payload without the schema part.
//
//   bench/converter_benchmark [--benchmark_repetitions=5]
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench_data.h"
#include "ksink/converter.h"

namespace ksink::bench {
namespace {

constexpr int64_t kRows = 10000;

void convert(benchmark::State& state, bool schemas_enable, std::string (*encode)(const OrderRow&)) {
  std::vector<std::string> values;
  for (const auto& row : orderRows(kRows)) values.push_back(encode(row));
  const Config config({{"value.converter", "json"},
                       {"value.converter.schemas.enable", schemas_enable ? "true" : "false"}});
  auto converter = makeConverter(config, /*is_key=*/false);
  size_t i = 0;
  int64_t bytes = 0;
  for (auto _ : state) {
    const auto& value = values[i++ % values.size()];
    benchmark::DoNotOptimize(converter->toConnectData("orders", value));
    bytes += static_cast<int64_t>(value.size());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(bytes);
}

void BM_JsonEnvelope(benchmark::State& state) {
  convert(state, true, envelopeJson);
}
void BM_JsonSchemaless(benchmark::State& state) {
  convert(state, false, schemalessJson);
}

BENCHMARK(BM_JsonEnvelope);
BENCHMARK(BM_JsonSchemaless);

}  // namespace
}  // namespace ksink::bench

BENCHMARK_MAIN();
