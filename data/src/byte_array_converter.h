// ByteArrayConverter: Connect's org.apache.kafka.connect.converters.ByteArrayConverter — the bytes
// as they are, with an optional bytes schema.
#pragma once

#include "ksink/converter.h"

namespace ksink {

class ByteArrayConverter final : public Converter {
 public:
  SchemaAndValue toConnectData(std::string_view, std::optional<std::string_view> data) override {
    if (!data) return {Schema::of(Schema::Type::kBytes, true), Value()};
    return {Schema::of(Schema::Type::kBytes, true), Value::bytes(std::string(*data))};
  }
};

}  // namespace ksink
