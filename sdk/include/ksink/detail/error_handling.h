// ErrorHandling: errors.tolerance, errors.log.enable and errors.log.include.messages as Kafka
// Connect reads them — tolerance none | all, booleans in any case, unset false. The one reading of
// them: a sink's error settings, a source connector's and the source task adapter (data model)
// each take theirs from here. Not connector API (detail/).
#pragma once

#include <map>
#include <string>

namespace ksink::detail {

struct ErrorHandling {
  bool tolerate_all = false;          // errors.tolerance=all
  bool log_errors = false;            // errors.log.enable
  bool log_include_messages = false;  // errors.log.include.messages

  static ErrorHandling parse(const std::map<std::string, std::string>& values);
};

}  // namespace ksink::detail
