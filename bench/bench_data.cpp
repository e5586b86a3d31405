#include "bench_data.h"

#include <fmt/format.h>

#include <memory>

#include "ksink/config.h"
#include "ksink/converter.h"

namespace ksink::bench {

OrderRow orderRow(int64_t i) {
  return {
      i, fmt::format("SKU-{:06}-{:02}", i % 250000, i % 89), static_cast<int32_t>(1 + i % 40),
      static_cast<double>(i % 900000) / 100.0,
      fmt::format("order {:08} for store {:03}, packed in crate {:05}, left at dock {:02} by noon",
                  i, i % 512, i % 65536, i % 12)};
}

std::vector<OrderRow> orderRows(int64_t count) {
  std::vector<OrderRow> rows;
  rows.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) rows.push_back(orderRow(i));
  return rows;
}

size_t rowBytes(const OrderRow& row) {
  return 20 + row.sku.size() + row.comment.size();
}

std::string envelopeJson(const OrderRow& row) {
  return fmt::format(R"({{"schema":{{"type":"struct","fields":[)"
                     R"({{"type":"int64","optional":false,"field":"id"}},)"
                     R"({{"type":"string","optional":false,"field":"sku"}},)"
                     R"({{"type":"int32","optional":false,"field":"qty"}},)"
                     R"({{"type":"double","optional":false,"field":"price"}},)"
                     R"({{"type":"string","optional":false,"field":"comment"}}],)"
                     R"("optional":false,"name":"orders"}},"payload":{}}})",
                     schemalessJson(row));
}

std::string schemalessJson(const OrderRow& row) {
  return fmt::format(R"({{"id":{},"sku":"{}","qty":{},"price":{},"comment":"{}"}})", row.id,
                     row.sku, row.qty, row.price, row.comment);
}

std::function<std::string(const OrderRow&)> avroEncoder(const std::string& registry_url) {
  std::shared_ptr<Converter> converter = Converter::create(
      Config(std::map<std::string, std::string>{
          {"value.converter", "avro"}, {"value.converter.schema.registry.url", registry_url}}),
      false);
  auto schema = std::make_shared<Schema>();
  schema->type = Schema::Type::kStruct;
  schema->name = "orders";
  schema->fields = {{"id", Schema::of(Schema::Type::kInt64)},
                    {"sku", Schema::of(Schema::Type::kString)},
                    {"qty", Schema::of(Schema::Type::kInt32)},
                    {"price", Schema::of(Schema::Type::kFloat64)},
                    {"comment", Schema::of(Schema::Type::kString)}};
  return [converter, schema = std::shared_ptr<const Schema>(schema)](const OrderRow& row) {
    return *converter->fromConnectData(
        "bench-avro", {schema, Value::object({{"id", Value::integer(row.id)},
                                              {"sku", Value::string(row.sku)},
                                              {"qty", Value::integer(row.qty)},
                                              {"price", Value::floating(row.price)},
                                              {"comment", Value::string(row.comment)}})});
  };
}

BenchTopic produceTopic(it::RealKafka& kafka, const std::string& prefix,
                        const std::vector<OrderRow>& rows, int partitions,
                        const std::function<std::string(const OrderRow&)>& encode) {
  BenchTopic topic{it::uniqueName(prefix), 0};
  kafka.createTopic(topic.name, partitions);
  std::vector<it::RealKafka::Message> batch;
  for (size_t i = 0; i < rows.size(); ++i) {
    auto value = encode(rows[i]);
    topic.value_bytes += static_cast<double>(value.size());
    batch.push_back({static_cast<int>(rows[i].id % partitions), std::nullopt, std::move(value)});
    if (batch.size() == 100000 || i + 1 == rows.size()) {
      kafka.produce(topic.name, batch);
      batch.clear();
    }
  }
  return topic;
}

}  // namespace ksink::bench
