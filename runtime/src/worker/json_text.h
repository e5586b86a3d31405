// JSON text for the REST API and the herder's state directory: a JSON object read into the data
// model's values (Connect's JsonConverter, schemaless), and text maps written as JSON.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "ksink/value.h"

namespace ksink {

// Throws std::invalid_argument when `text` is not a JSON object.
Value::Object parseJsonObject(std::string_view text);
// The member `name` of `object`; null when it has none.
const Value* jsonMember(const Value::Object& object, std::string_view name);
// `text` as a JSON string, quoted.
std::string jsonText(std::string_view text);
// A map of text to text as a JSON object.
std::string jsonMap(const std::map<std::string, std::string>& values);

}  // namespace ksink
