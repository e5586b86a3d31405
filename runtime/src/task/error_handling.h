// ErrorHandling: errors.tolerance, errors.log.enable and errors.log.include.messages as Kafka
// Connect reads them — tolerance none | all, booleans in any case, unset false. The one reading of
// them, and their one definition: a sink's error settings (errors_config.h), a source connector's
// and the source task adapter each take theirs from here. The runtime's, beside the DLQ keys: the
// connector contract below it has no error handling of its own.
#pragma once

#include <map>
#include <string>

#include "ksink/config_def.h"

namespace ksink {

struct ErrorHandling {
  bool tolerate_all = false;          // errors.tolerance=all
  bool log_errors = false;            // errors.log.enable
  bool log_include_messages = false;  // errors.log.include.messages

  // The three keys, as every connector has them (Connect's ConnectorConfig).
  static const ConfigDef& configDef();
  static ErrorHandling parse(const std::map<std::string, std::string>& values);
};

}  // namespace ksink
