// StringConverter: Connect's org.apache.kafka.connect.storage.StringConverter — the bytes as an
// optional string (UTF-8 is not checked, as in Connect).
#pragma once

#include "ksink/converter.h"

namespace ksink {

class StringConverter final : public Converter {
 public:
  SchemaAndValue toConnectData(std::string_view, std::optional<std::string_view> data) override {
    if (!data) return {Schema::of(Schema::Type::kString, true), Value()};
    return {Schema::of(Schema::Type::kString, true), Value::string(std::string(*data))};
  }
};

}  // namespace ksink
