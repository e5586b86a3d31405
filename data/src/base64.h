// Base64 (RFC 4648, standard alphabet, padded): how Connect's JSON converter writes bytes and
// Decimal values.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ksink {

std::string base64Encode(std::string_view bytes);
// nullopt when `text` is not valid padded base64.
std::optional<std::string> base64Decode(std::string_view text);

}  // namespace ksink
