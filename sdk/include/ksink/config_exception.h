// ConfigException: a configuration was rejected. The message names every offending key and why.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace ksink {

struct ConfigProblem {
  std::string key;
  std::string reason;
};

class ConfigException : public std::runtime_error {
 public:
  explicit ConfigException(std::vector<ConfigProblem> problems);
  const std::vector<ConfigProblem>& problems() const { return problems_; }

 private:
  std::vector<ConfigProblem> problems_;
};

}  // namespace ksink
