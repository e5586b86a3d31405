#include "ksink/testkit/scenario_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace ksink::testkit {

void requirePlainName(const std::string& kind, const std::string& name) {
  // The name becomes part of topics, groups and (in table connectors) table names.
  const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
  if (!plain)
    throw std::invalid_argument(
        fmt::format("{} name \"{}\": use letters, digits and '_' only", kind, name));
}

}  // namespace ksink::testkit
