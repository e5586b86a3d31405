#include "error_handling.h"

#include "ksink/detail/config_parse.h"

namespace ksink {

const ConfigDef& ErrorHandling::configDef() {
  using Type = ConfigDef::Type;
  using Importance = ConfigDef::Importance;
  static const ConfigDef def =
      ConfigDef()
          .define("errors.tolerance", Type::kString, "none", Importance::kMedium,
                  "none: a record that fails conversion, a transform or its write fails the "
                  "task; all: it is skipped (and its offset committed).",
                  ConfigDef::oneOf({"none", "all"}))
          .define("errors.log.enable", Type::kBoolean, "false", Importance::kMedium,
                  "Log each record skipped or reported (and, in a sink, enable the errant record "
                  "reporter).")
          .define("errors.log.include.messages", Type::kBoolean, "false", Importance::kMedium,
                  "Include the record's coordinates (topic, partition, offset; or source "
                  "partition and offset) in that log.");
  return def;
}

ErrorHandling ErrorHandling::parse(const std::map<std::string, std::string>& values) {
  auto value = [&](const char* key) -> std::string {
    auto it = values.find(key);
    return it == values.end() ? std::string() : std::string(detail::trim(it->second));
  };
  ErrorHandling out;
  out.tolerate_all = value("errors.tolerance") == "all";
  out.log_errors = detail::parseBoolean(value("errors.log.enable")).value_or(false);
  out.log_include_messages =
      detail::parseBoolean(value("errors.log.include.messages")).value_or(false);
  return out;
}

}  // namespace ksink
