// The benchmark's data: N order rows (id int64, sku string, qty int32, price double, comment of
// ~80 characters), their Kafka encodings (Kafka Connect's JSON envelope with a schema, schemaless
// JSON, and Avro in Confluent's wire format through a schema registry), and the tables they land
// in. Every case of a run reads the same rows.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "test_kafka.h"

namespace ksink::bench {

struct OrderRow {
  int64_t id;
  std::string sku;
  int32_t qty;
  double price;
  std::string comment;
};

OrderRow orderRow(int64_t i);
std::vector<OrderRow> orderRows(int64_t count);
// What a row costs as plain values (8 + 4 + 8 bytes plus the two strings): the raw limits' MB/s.
size_t rowBytes(const OrderRow& row);

// {"schema":{"type":"struct","fields":[...],"optional":false},"payload":{...}}
std::string envelopeJson(const OrderRow& row);
std::string schemalessJson(const OrderRow& row);
// Avro as Confluent's AvroConverter writes it (ksink's, which the tests hold to Confluent's bytes),
// the schema registered once in the registry at `registry_url` (Confluent's API).
std::function<std::string(const OrderRow&)> avroEncoder(const std::string& registry_url);

// Column definitions, in the rows' order.
inline constexpr const char* kPgColumns =
    "id bigint, sku text, qty integer, price double precision, comment text";
inline constexpr const char* kSqliteColumns =
    "\"id\" INTEGER, \"sku\" TEXT, \"qty\" INTEGER, \"price\" REAL, \"comment\" TEXT";

struct BenchTopic {
  std::string name;
  double value_bytes = 0;  // sum over the records
};

// Creates a topic and produces every row into it, row i into partition i % partitions.
BenchTopic produceTopic(it::RealKafka& kafka, const std::string& prefix,
                        const std::vector<OrderRow>& rows, int partitions,
                        const std::function<std::string(const OrderRow&)>& encode);

}  // namespace ksink::bench
