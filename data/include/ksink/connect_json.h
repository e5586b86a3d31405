// A map of Connect values as Connect's JsonConverter writes it schemaless (numbers in Java's
// text): the form of Connect's source partitions and offsets. Read from the map, not a copy.
#pragma once

#include <string>

#include "ksink/value.h"

namespace ksink {

std::string toConnectJson(const Value::Object& map);

}  // namespace ksink
