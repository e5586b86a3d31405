// JSON string text, as Jackson writes it: the text quoted, with \" \\ \b \f \n \r \t and the other
// control characters as \u00XX; everything else (UTF-8 included) as it is. One copy for the core's
// JSON (/status) and the data model's writers (Connect's converters, offsets). Not connector API.
#pragma once

#include <string>
#include <string_view>

namespace ksink::detail {

// Appends `text` as a JSON string; `upper_hex`: \u00XX in upper case (Jackson's), else lower.
void appendJsonString(std::string& out, std::string_view text, bool upper_hex = true);

}  // namespace ksink::detail
