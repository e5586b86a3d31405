#include "ksink/detail/error_handling.h"

#include "ksink/detail/config_parse.h"

namespace ksink::detail {

ErrorHandling ErrorHandling::parse(const std::map<std::string, std::string>& values) {
  auto value = [&](const char* key) -> std::string {
    auto it = values.find(key);
    return it == values.end() ? std::string() : std::string(trim(it->second));
  };
  ErrorHandling out;
  out.tolerate_all = value("errors.tolerance") == "all";
  out.log_errors = parseBoolean(value("errors.log.enable")).value_or(false);
  out.log_include_messages = parseBoolean(value("errors.log.include.messages")).value_or(false);
  return out;
}

}  // namespace ksink::detail
