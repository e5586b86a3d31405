// SimpleHeaderConverter: Kafka Connect's default header.converter, writing — a header's value as
// text: strings and bytes as they are, numbers and booleans as Java prints them, the rest as
// JSON; a null value is a null header.
#pragma once

#include <optional>
#include <string>

#include "ksink/value.h"

namespace ksink {

struct SimpleHeaderConverter {
  static std::optional<std::string> fromConnectHeader(const SchemaAndValue& header);
};

}  // namespace ksink
