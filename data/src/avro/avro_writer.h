// Connect data as Avro, the way Confluent's AvroConverter writes it (io.confluent.connect.avro.
// AvroData.fromConnectSchema / fromConnectData with connect.meta.data=true): the reverse of
// avro_data.h, so what one writes the other reads back to the same schema and value.
//   int8 / int16 → int with connect.type; int32, int64, float32, float64, boolean, string, bytes →
//     int, long, float, double, boolean, string, bytes;
//   Decimal → bytes, logicalType decimal (precision: connect.decimal.precision, else 64);
//   Date, Time → int date / time-millis; Timestamp → long timestamp-millis;
//   bytes with connect.fixed.size → fixed; a string with io.confluent.connect.avro.Enum
//     parameters stays a string that carries them (Confluent writes an Avro enum only with
//     enhanced.avro.schema.support, which ksink does not implement);
//   array → array; map with string keys → map, other keys → an array of
//     io.confluent.connect.avro.MapEntry records; struct → record named by the schema (unnamed:
//     io.confluent.connect.avro.ConnectDefault, ConnectDefault2…); io.confluent.connect.avro.Union
//     → a union of its fields' schemas;
//   optional → a union with null first ([X, null] for a field whose default is not null), a
//     field's primitive default → its Avro default;
//   connect.name, connect.version, connect.doc and connect.parameters carry what Avro has no place
//     for. A named type met again is referred to by its name, as Avro requires; a different
//     schema under a name already written is refused.
// Two halves, two files: the schema in avro_schema_writer.cpp, the datum in avro_datum_writer.cpp.
// Both are pure functions, callable from any thread.
#pragma once

#include <string>

#include "avro/avro_schema.h"
#include "ksink/schema.h"
#include "ksink/value.h"

namespace ksink::avro {

// The Avro schema (JSON text) for `schema`. Throws ConversionError for what Avro cannot carry (two
// different structs, or fixed, of one name).
std::string fromConnectSchema(const Schema& schema);

// Appends `value` in Avro's binary encoding of `node`. `schema` is the value's Connect schema;
// `node` is what fromConnectSchema(schema) parses to, or another schema of the subject (a record's
// fields are matched by name; a field the value lacks takes its null default). Throws
// ConversionError for a value that does not fit: a null where no null is allowed, a kind that
// differs from the type, an enum symbol not declared, a fixed of another size.
void writeAvroBinary(const AvroNode& node, const Schema& schema, const Value& value,
                     std::string& out);

}  // namespace ksink::avro
