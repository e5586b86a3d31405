#include "ksink/config_exception.h"

#include <fmt/format.h>

namespace ksink {
namespace {

std::string describe(const std::vector<ConfigProblem>& problems) {
  std::string out = problems.size() == 1
                        ? "invalid configuration: "
                        : fmt::format("{} configuration problems: ", problems.size());
  for (size_t i = 0; i < problems.size(); ++i) {
    if (i > 0) out += "; ";
    out += fmt::format("{}: {}", problems[i].key, problems[i].reason);
  }
  return out;
}

}  // namespace

ConfigException::ConfigException(std::vector<ConfigProblem> problems)
    : std::runtime_error(describe(problems)), problems_(std::move(problems)) {}

}  // namespace ksink
