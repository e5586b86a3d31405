// ErrorsConfig: Kafka Connect's error-handling keys (errors.*), parsed once per connector.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "error_handling.h"
#include "ksink/config.h"

namespace ksink {

struct ErrorsConfig {
  ErrorHandling handling;            // errors.tolerance, errors.log.*
  std::string dlq_topic;             // errors.deadletterqueue.topic.name ("" = none)
  int dlq_replication_factor = 3;    // errors.deadletterqueue.topic.replication.factor
  bool dlq_context_headers = false;  // errors.deadletterqueue.context.headers.enable
  // librdkafka properties of the DLQ producer: bootstrap + security, producer.*,
  // producer.override.*.
  std::map<std::string, std::string> producer_properties;

  // ksink hands sinks a reporter whenever a record may be skipped or reported: with
  // errors.tolerance=all too, not only with a DLQ or error logging as in Connect (there the
  // framework skips bad records itself; here the sink converts, so it needs the reporter).
  bool reporterEnabled() const {
    return handling.tolerate_all || handling.log_errors || !dlq_topic.empty();
  }

  static const ConfigDef& configDef();
  // Assumes `config` passed configDef()'s validation.
  static ErrorsConfig parse(const Config& config);
};

}  // namespace ksink
