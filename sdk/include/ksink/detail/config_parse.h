// Parsing of configuration values by type, shared by ConfigDef::validate and Config's getters so
// that what validates is exactly what the getters accept, and by the table toolkit (transforms=
// lists, Debezium keys), which reads raw property maps. An implementation detail of the SDK's
// libraries, installed because they share it; not part of the connector API.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ksink::detail {

std::optional<int64_t> parseLong(std::string_view text);
std::optional<double> parseDouble(std::string_view text);
std::optional<bool> parseBoolean(std::string_view text);
std::vector<std::string> parseList(std::string_view text);
std::string_view trim(std::string_view text);
// `text` in lower case, ASCII letters only (as Java's toLowerCase(Locale.ROOT) treats keys,
// values and SQL names made of them).
std::string asciiLower(std::string_view text);
// Whether `a` and `b` are equal but for the case of ASCII letters (Java's equalsIgnoreCase on
// such text).
bool equalsIgnoreCase(std::string_view a, std::string_view b);
// librdkafka security settings passed through to every client (consumer, DLQ producer).
bool isClientSecurityKey(std::string_view key);

}  // namespace ksink::detail
