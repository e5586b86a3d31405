#include "ksink/converter.h"

#include <fmt/format.h>

#include "byte_array_converter.h"
#include "json_converter.h"
#include "string_converter.h"

namespace ksink {
namespace {

constexpr std::string_view kJsonClass = "org.apache.kafka.connect.json.JsonConverter";
constexpr std::string_view kStringClass = "org.apache.kafka.connect.storage.StringConverter";
constexpr std::string_view kBytesClass = "org.apache.kafka.connect.converters.ByteArrayConverter";

enum class Kind { kJson, kString, kBytes };

std::optional<Kind> kindOf(std::string_view name) {
  if (name == kJsonClass || name == "json") return Kind::kJson;
  if (name == kStringClass || name == "string") return Kind::kString;
  if (name == kBytesClass || name == "bytes") return Kind::kBytes;
  return std::nullopt;
}

std::optional<std::string> validConverter(std::string_view value) {
  if (kindOf(value)) return std::nullopt;
  return fmt::format("unknown converter '{}' (use {}, {}, {} or json, string, bytes)", value,
                     kJsonClass, kStringClass, kBytesClass);
}

}  // namespace

std::unique_ptr<Converter> Converter::create(const Config& config, bool is_key) {
  const std::string prefix = is_key ? "key.converter" : "value.converter";
  const auto name = config.get(prefix).value_or(std::string(kJsonClass));
  const auto kind = kindOf(name);
  if (!kind) throw ConfigException({{prefix, *validConverter(name)}});
  switch (*kind) {
    case Kind::kString:
      return std::make_unique<StringConverter>();
    case Kind::kBytes:
      return std::make_unique<ByteArrayConverter>();
    case Kind::kJson:
      break;
  }
  const auto enable = config.get(prefix + ".schemas.enable").value_or("true");
  if (enable != "true" && enable != "false")
    throw ConfigException(
        {{prefix + ".schemas.enable", fmt::format("'{}' is not true or false", enable)}});
  return std::make_unique<JsonConverter>(enable == "true");
}

const ConfigDef& Converter::configDef() {
  static const ConfigDef def = [] {
    using Type = ConfigDef::Type;
    using Importance = ConfigDef::Importance;
    ConfigDef d;
    for (const std::string prefix : {"key.converter", "value.converter"}) {
      d.define(prefix, Type::kString, std::string(kJsonClass), Importance::kLow,
               "Converter for record " + prefix.substr(0, prefix.find('.')) +
                   "s: a Kafka Connect class name or json, string, bytes",
               validConverter);
      d.define(prefix + ".schemas.enable", Type::kBoolean, "true", Importance::kLow,
               "JSON converter: the data is Connect's {\"schema\", \"payload\"} envelope");
    }
    return d;
  }();
  return def;
}

}  // namespace ksink
