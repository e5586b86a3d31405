// AvroData: Avro schemas and data as Connect's, the way Confluent's AvroConverter maps them
// (io.confluent.connect.avro.AvroData, connect.meta.data=true, the other options at their
// defaults):
//   boolean, int, long, float, double, string, bytes → the Connect type of the same name (int with
//     connect.type int8 / int16 → int8 / int16; uuid is a plain string);
//   int date / time-millis, long timestamp-millis → Connect's Date, Time, Timestamp;
//     time-micros, timestamp-micros and the local timestamps stay plain longs, as Confluent's do;
//   bytes or fixed with logicalType decimal → Decimal (parameter scale; connect.decimal.precision
//     when the precision is not 64);
//   fixed(N) → bytes named by the fixed, parameter connect.fixed.size = N;
//   enum → string named by the enum, parameters io.confluent.connect.avro.Enum(.<symbol>);
//   array → array, but an array of io.confluent.connect.avro.MapEntry records → a map;
//   map → map with string keys; record → struct named by the record;
//   union of one → that branch; union of null and X → optional X; any other union → a struct
//     named io.confluent.connect.avro.Union with an optional field per branch, named by the
//     branch's simple name (records, enums, fixed) or Avro type name.
// Annotations read: connect.name, connect.version (else the registry's version, top level only),
// connect.doc, connect.parameters, connect.default and field defaults (primitives), props
// starting with "avro" as parameters. Names starting with io.confluent.connect.avro.ConnectDefault
// are dropped, as Confluent drops them.
// Two halves, two files: the schema in avro_schema_reader.cpp, the datum in avro_datum_reader.cpp.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "avro/avro_schema.h"
#include "ksink/schema.h"
#include "ksink/value.h"

namespace ksink::avro {

// Throws ConversionError for what Connect cannot represent (a standalone null schema, a union
// whose branches share a name, connect.parameters that are not strings).
std::shared_ptr<const Schema> toConnectSchema(const AvroNode& node,
                                              std::optional<int32_t> version = std::nullopt);

// Decodes one datum of `node` (Avro's binary encoding) into the Value of `schema` (what
// toConnectSchema made of `node`). Every length, count, index and varint is checked against the
// input: throws ConversionError for bytes that are not such a datum, or that have bytes left over.
Value readAvroBinary(const AvroNode& node, const Schema& schema, std::string_view data);

}  // namespace ksink::avro
