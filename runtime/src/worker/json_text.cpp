#include "json_text.h"

#include <fmt/format.h>

#include <stdexcept>

#include "ksink/converter.h"
#include "ksink/detail/json_string.h"

namespace ksink {

Value::Object parseJsonObject(std::string_view text) {
  const auto json =
      Converter::create(Config({{"value.converter", std::string(Converter::kJsonClass)},
                                {"value.converter.schemas.enable", "false"}}),
                        false);
  SchemaAndValue parsed;
  try {
    parsed = json->toConnectData("", text);
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("not valid JSON: {}", e.what()));
  }
  if (parsed.value.kind() != Value::Kind::kObject) throw std::invalid_argument("not a JSON object");
  return parsed.value.asObject();
}

std::string jsonText(std::string_view text) {
  std::string out;
  detail::appendJsonString(out, text);
  return out;
}

const Value* jsonMember(const Value::Object& object, std::string_view name) {
  for (const auto& [key, value] : object)
    if (key == name) return &value;
  return nullptr;
}

std::string jsonMap(const std::map<std::string, std::string>& values) {
  std::string out = "{";
  for (const auto& [key, value] : values) {
    if (out.size() > 1) out += ',';
    out += jsonText(key) + ':' + jsonText(value);
  }
  return out + '}';
}

}  // namespace ksink
