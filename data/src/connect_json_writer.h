// The bytes Kafka Connect's JsonConverter writes (fromConnectData), byte for byte: compact JSON as
// Jackson serializes it — object keys in the order Connect puts them, strings with Jackson's
// escapes (\" \\ \b \f \n \r \t, other control characters as \u00XX in upper-case hex, the rest
// as UTF-8), integers in decimal, floating point as Java's Float/Double.toString (NaN and the
// infinities quoted), bytes (and so Decimal's unscaled bytes) as padded base64.
//
// A schema's JSON form (JsonConverter.asJsonSchema): {"type", then "items" | "keys","values" |
// "fields" (each field's own form with "field" last), "optional", "name", "version", "doc",
// "parameters", "default"}. A value follows its schema: a struct is an object in field order, a
// map with string keys an object and any other map an array of [key, value] pairs, a null takes
// the schema's default; schemaless values are written by their kind. Throws ConversionError for
// a value its schema does not admit (a null for a required field without a default, a kind the
// type cannot hold). No state: any thread.
#pragma once

#include <string>
#include <string_view>

#include "ksink/schema.h"
#include "ksink/value.h"

namespace ksink {

// How a schemaless value's JSON is spelled: as Connect writes it (Jackson's upper-case \u00XX,
// Java's number text, NaN quoted), or plain (lower-case \u00xx, the shortest round-trip number
// text: Value::toJson, for JSON columns and messages).
enum class JsonSpelling { kConnect, kPlain };

// Appends `value` as JSON, by its kind, spelled as asked.
void appendSchemalessJson(std::string& out, const Value& value, JsonSpelling spelling);
// The same for a map held without a Value around it.
void appendSchemalessJson(std::string& out, const Value::Object& object, JsonSpelling spelling);
// Appends a schema's parameters as a JSON object of strings, in their order ({"scale":"2"}).
void appendParametersJson(std::string& out, const SchemaParameters& parameters);
// Appends `schema`'s JSON form to `out`.
void appendConnectSchemaJson(std::string& out, const Schema& schema);
// Appends `value` written against `schema` (nullptr = schemaless) to `out`.
void appendConnectJson(std::string& out, const Schema* schema, const Value& value);

}  // namespace ksink
