#include "ksink/detail/config_parse.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace ksink::detail {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n\f");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n\f");
  return text.substr(first, last - first + 1);
}

bool isClientSecurityKey(std::string_view key) {
  return key == "security.protocol" || key.starts_with("ssl.") || key.starts_with("sasl.");
}

namespace {

// The whole of `text` (trimmed) as a number, or nullopt.
template <typename Number>
std::optional<Number> parseNumber(std::string_view text) {
  text = trim(text);
  Number value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

}  // namespace

std::optional<int64_t> parseLong(std::string_view text) {
  return parseNumber<int64_t>(text);
}

std::optional<double> parseDouble(std::string_view text) {
  return parseNumber<double>(text);
}

std::optional<bool> parseBoolean(std::string_view text) {
  const auto lower = asciiLower(trim(text));
  if (lower == "true") return true;
  if (lower == "false") return false;
  return std::nullopt;
}

std::string asciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    return lower(x) == lower(y);
  });
}

std::vector<std::string> parseList(std::string_view text) {
  std::vector<std::string> items;
  std::set<std::string, std::less<>> seen;
  while (true) {
    const auto comma = text.find(',');
    const auto item = trim(text.substr(0, comma));
    if (!item.empty() && seen.insert(std::string(item)).second) items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return items;
}

}  // namespace ksink::detail
