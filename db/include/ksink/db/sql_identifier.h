// SQL identifiers and string literals as PostgreSQL and SQLite both spell them. Identifiers are
// always double-quoted, embedded quotes doubled, so case and any character of a topic, table or
// field name survive; literals are single-quoted the same way (PostgreSQL's
// standard_conforming_strings, on since 9.1: a backslash is itself).
#pragma once

#include <string>
#include <string_view>

namespace ksink {

std::string quoteIdentifier(std::string_view name);
std::string quoteLiteral(std::string_view text);

}  // namespace ksink
