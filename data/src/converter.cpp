#include "ksink/converter.h"

#include <fmt/format.h>

#include "avro/avro_converter.h"
#include "byte_array_converter.h"
#include "json_converter.h"
#include "string_converter.h"

namespace ksink {
namespace {

constexpr std::string_view kJsonClass = Converter::kJsonClass;
constexpr std::string_view kStringClass = "org.apache.kafka.connect.storage.StringConverter";
constexpr std::string_view kBytesClass = Converter::kBytesClass;
constexpr std::string_view kAvroClass = "io.confluent.connect.avro.AvroConverter";

enum class Kind { kJson, kString, kBytes, kAvro };

std::optional<Kind> kindOf(std::string_view name) {
  if (name == kJsonClass || name == "json") return Kind::kJson;
  if (name == kStringClass || name == "string") return Kind::kString;
  if (name == kBytesClass || name == "bytes") return Kind::kBytes;
  if (name == kAvroClass || name == "avro") return Kind::kAvro;
  return std::nullopt;
}

std::optional<std::string> validConverter(std::string_view value) {
  if (kindOf(value)) return std::nullopt;
  return fmt::format("unknown converter '{}' (use {}, {}, {}, {} or json, string, bytes, avro)",
                     value, kJsonClass, kStringClass, kBytesClass, kAvroClass);
}

}  // namespace

std::unique_ptr<Converter> Converter::create(const Config& config, bool is_key) {
  return create(config, is_key, kJsonClass);
}

std::unique_ptr<Converter> Converter::create(const Config& config, bool is_key,
                                             std::string_view fallback) {
  const std::string prefix = is_key ? "key.converter" : "value.converter";
  const auto name = config.get(prefix).value_or(std::string(fallback));
  const auto kind = kindOf(name);
  if (!kind) throw ConfigException({{prefix, *validConverter(name)}});
  switch (*kind) {
    case Kind::kString:
      return std::make_unique<StringConverter>();
    case Kind::kBytes:
      return std::make_unique<ByteArrayConverter>();
    case Kind::kAvro:
      return std::make_unique<avro::AvroConverter>(
          avro::AvroConverterConfig::parse(config.values(), prefix + "."), is_key);
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
  static const ConfigDef def = configDef(kJsonClass);
  return def;
}

ConfigDef Converter::configDef(std::string_view fallback) {
  using Type = ConfigDef::Type;
  using Importance = ConfigDef::Importance;
  ConfigDef d;
  for (const std::string prefix : {"key.converter", "value.converter"}) {
    d.define(prefix, Type::kString, std::string(fallback), Importance::kLow,
             "Converter for record " + prefix.substr(0, prefix.find('.')) +
                 "s: a Kafka Connect class name or json, string, bytes, avro",
             validConverter);
    d.define(prefix + ".schemas.enable", Type::kBoolean, "true", Importance::kLow,
             "JSON converter: the data is Connect's {\"schema\", \"payload\"} envelope");
    avro::AvroConverterConfig::define(d, prefix + ".");
    // The Avro converter's keys depend on each other and refuse what they do not implement:
    // checked at start, before any record.
    d.check([prefix](const std::map<std::string, std::string>& values) {
      const auto it = values.find(prefix);
      if (it == values.end() || kindOf(it->second) != Kind::kAvro)
        return std::vector<ConfigProblem>{};
      try {
        avro::AvroConverterConfig::parse(values, prefix + ".");
      } catch (const ConfigException& e) {
        return e.problems();
      }
      return std::vector<ConfigProblem>{};
    });
  }
  return d;
}

}  // namespace ksink
