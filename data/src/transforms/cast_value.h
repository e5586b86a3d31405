// Connect's Cast conversions (Cast.castValueToType) with Java's semantics: narrowing and
// saturating numeric casts, Java's number parsing and printing, Connect's text for dates and
// bytes. Pure functions: any thread.
#pragma once

#include <string>
#include <string_view>

#include "ksink/schema.h"
#include "ksink/value.h"

namespace ksink::detail {

// `s` in capitals (ASCII).
std::string upperCase(std::string_view s);
// Connect's name of `type` in capitals, as its messages print it (INT8 … FLOAT32, FLOAT64).
std::string typeUpper(Schema::Type type);
// `value` (of `schema`; nullptr when schemaless) cast to `target`; throws ConversionError for a
// source type Cast does not support.
Value castValue(const Schema* schema, const Value& value, Schema::Type target);

}  // namespace ksink::detail
