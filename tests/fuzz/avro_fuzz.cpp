// Fuzz target: Avro schemas and binary data as the Avro converter will meet them from the wire.
// The only acceptable failures are std::invalid_argument (a schema that is not Avro) and
// ConversionError (a schema Connect cannot hold, bytes that are not a datum of the schema); any
// other exception, crash, hang, read past the input or outsized allocation is a bug.
// Every datum that reads is also written back (avro_writer.h) — against its own schema and against
// the Avro schema its Connect schema is written as — and read again: the writer must take it, and
// writing what was read back must give the same bytes again (abort otherwise).
// The first input byte picks the mode: even — one of the fixed schemas below (by the byte's
// value) and the rest is a datum of it; odd — the rest is "<schema JSON>\n<datum>".
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "avro/avro_data.h"
#include "avro/avro_schema.h"
#include "avro/avro_writer.h"
#include "ksink/conversion_error.h"

namespace {

using namespace ksink;

const char* const kSchemas[] = {
    R"({"type":"record","name":"R","namespace":"n","fields":[{"name":"id","type":"long"},
      {"name":"s","type":["null","string"]},{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
      {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}},
      {"name":"f","type":{"type":"fixed","name":"F","size":4}},{"name":"x","type":"double"},{"name":"y","type":"float"},
      {"name":"b","type":"boolean"}]})",
    R"({"type":"array","items":{"type":"map","values":["int","string",{"type":"record","name":"I","fields":[{"name":"v","type":"int"}]}]}})",
    R"({"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro",
      "fields":[{"name":"key","type":"long"},{"name":"value","type":["null","bytes"]}]}})",
    R"({"type":"array","items":{"type":"record","name":"Empty","fields":[]}})",
    R"({"type":"record","name":"T","fields":[{"name":"d","type":{"type":"int","logicalType":"date"}},
      {"name":"t","type":{"type":"long","logicalType":"timestamp-millis"}},{"name":"a","type":{"type":"array","items":"string"}}]})",
};

struct Fixed {
  std::shared_ptr<const avro::AvroSchema> avro;
  std::shared_ptr<const Schema> connect;
};

const std::vector<Fixed>& fixed() {
  static const std::vector<Fixed> all = [] {
    std::vector<Fixed> out;
    for (const char* s : kSchemas) {
      auto a = avro::AvroSchema::parse(s);
      out.push_back({a, avro::toConnectSchema(a->root())});
    }
    return out;
  }();
  return all;
}

// Writes `value` as `node`, reads it back and writes that again: both writes must be equal.
void roundTrip(const avro::AvroNode& node, const Schema& schema, const Value& value) {
  std::string first, second;
  avro::writeAvroBinary(node, schema, value, first);
  const auto again = avro::readAvroBinary(node, schema, first);
  avro::writeAvroBinary(node, schema, again, second);
  if (first != second) __builtin_trap();
}

void check(const avro::AvroNode& node, const Schema& schema, std::string_view datum) {
  const auto value = avro::readAvroBinary(node, schema, datum);
  try {
    roundTrip(node, schema, value);
    const auto written = avro::AvroSchema::parse(avro::fromConnectSchema(schema));
    roundTrip(written->root(), schema, value);
  } catch (...) {
    __builtin_trap();  // what was read must write back
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    if (data[0] % 2 == 0) {
      const auto& f = fixed()[(data[0] / 2) % fixed().size()];
      check(f.avro->root(), *f.connect, rest);
    } else {
      const auto newline = rest.find('\n');
      const auto avro = avro::AvroSchema::parse(rest.substr(0, newline));
      const auto connect = avro::toConnectSchema(avro->root());
      if (newline != std::string_view::npos)
        check(avro->root(), *connect, rest.substr(newline + 1));
    }
  } catch (const ConversionError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
