// SQL identifiers as PostgreSQL and SQLite both spell them: always double-quoted, embedded
// quotes doubled, so case and any character of a topic, table or field name survive.
#pragma once

#include <string>
#include <string_view>

namespace ksink {

std::string quoteIdentifier(std::string_view name);

}  // namespace ksink
