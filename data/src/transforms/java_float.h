// Java's Float.toString / Double.toString, for the transforms that turn numbers into text as
// Connect's do (Cast to string) and for Connect's JSON. Pure: any thread.
#pragma once

#include <string>

namespace ksink::detail {

// Java's Float.toString / Double.toString (shortest digits, "1.0E10" outside [1e-3, 1e7)).
std::string javaFloatToString(double value, bool float32);
// The same text appended to `out`, with no allocation of its own (the JSON writer's hot path).
void appendJavaFloat(std::string& out, double value, bool float32);

}  // namespace ksink::detail
