// ByteArrayConverter: Connect's org.apache.kafka.connect.converters.ByteArrayConverter — the bytes
// as they are, with an optional bytes schema.
#pragma once

#include <string>

#include "ksink/converter.h"

namespace ksink {

class ByteArrayConverter final : public Converter {
 public:
  SchemaAndValue toConnectData(std::string_view, std::optional<std::string_view> data) override {
    if (!data) return {Schema::of(Schema::Type::kBytes, true), Value()};
    return {Schema::of(Schema::Type::kBytes, true), Value::bytes(std::string(*data))};
  }
  // Connect's ByteArrayConverter: the bytes themselves, nullopt for a null; a schema other than
  // bytes, or a value that is not bytes, is refused.
  std::optional<std::string> fromConnectData(std::string_view,
                                             const SchemaAndValue& data) override {
    if (data.schema && data.schema->type != Schema::Type::kBytes)
      throw ConversionError("ByteArrayConverter writes only bytes: the schema is not bytes");
    if (data.value.isNull()) return std::nullopt;
    if (data.value.kind() != Value::Kind::kBytes)
      throw ConversionError("ByteArrayConverter writes only bytes");
    return std::string(data.value.asBytes());
  }
};

}  // namespace ksink
