#include "ksink/simple_header_converter.h"

#include "connect_json_writer.h"
#include "transforms/java_float.h"

namespace ksink {

std::optional<std::string> SimpleHeaderConverter::fromConnectHeader(const SchemaAndValue& header) {
  const auto& v = header.value;
  switch (v.kind()) {
    case Value::Kind::kNull:
      return std::nullopt;
    case Value::Kind::kString:
      return v.asString();
    case Value::Kind::kBytes:
      return v.asBytes();
    case Value::Kind::kBoolean:
      return v.asBoolean() ? "true" : "false";
    case Value::Kind::kInt:
      return std::to_string(v.asInt());
    case Value::Kind::kDouble:
      return detail::javaFloatToString(
          v.asDouble(), header.schema && header.schema->type == Schema::Type::kFloat32);
    default: {
      std::string out;
      appendSchemalessJson(out, v, JsonSpelling::kConnect);
      return out;
    }
  }
}

}  // namespace ksink
