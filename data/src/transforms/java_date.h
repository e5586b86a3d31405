// javaDateToString: java.util.Date.toString() in UTC — "EEE MMM dd HH:mm:ss zzz yyyy", e.g.
// "Sat Jan 08 00:00:00 UTC 2022" — the text Connect's StringConverter writes for a Date, Time or
// Timestamp value (its JVM's zone: UTC is what ksink assumes).
#pragma once

#include <cstdint>
#include <string>

namespace ksink::detail {

std::string javaDateToString(int64_t epoch_millis);

}  // namespace ksink::detail
