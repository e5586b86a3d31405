#include "ksink/config.h"

#include <fmt/format.h>

#include <regex>
#include <sstream>

#include "ksink/detail/config_parse.h"
#include "ksink/detail/read_file.h"

namespace ksink {
namespace {

const ConfigDef& emptyDef() {
  static const ConfigDef def;
  return def;
}

[[noreturn]] void fail(std::string_view key, std::string reason) {
  throw ConfigException({{std::string(key), std::move(reason)}});
}

// Java .properties escapes that matter for config files: \t \n \r \f, \uXXXX (BMP only), and a
// backslash before any other character standing for that character.
void appendUnescaped(std::string& out, std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    const char c = text[++i];
    switch (c) {
      case 't':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 'f':
        out += '\f';
        break;
      case 'u':
        if (i + 4 < text.size()) {
          const unsigned code = std::stoul(std::string(text.substr(i + 1, 4)), nullptr, 16);
          i += 4;
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
          }
        }
        break;
      default:
        out += c;
    }
  }
}

}  // namespace

Config::Config(std::map<std::string, std::string> values) : values_(std::move(values)) {}

Config::Config(std::map<std::string, std::string> values, ConfigDef def)
    : values_(std::move(values)), def_(std::make_shared<const ConfigDef>(std::move(def))) {
  auto problems = def_->validate(values_);
  if (!problems.empty()) throw ConfigException(std::move(problems));
}

std::map<std::string, std::string> Config::parseProperties(std::string_view text) {
  // A byte-order mark (editors on Windows write one) is not part of the first key.
  constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
  if (text.starts_with(kUtf8Bom)) text.remove_prefix(kUtf8Bom.size());
  std::map<std::string, std::string> out;
  std::string logical;
  std::istringstream in{std::string(text)};
  std::string line;
  bool continued = false;
  while (std::getline(in, line)) {
    std::string_view view = detail::trim(line);
    if (!continued && (view.empty() || view.front() == '#' || view.front() == '!')) continue;
    // An odd number of trailing backslashes continues the line.
    size_t backslashes = 0;
    while (backslashes < view.size() && view[view.size() - 1 - backslashes] == '\\') ++backslashes;
    continued = backslashes % 2 == 1;
    if (continued) view.remove_suffix(1);
    logical += view;
    if (continued) continue;

    // The key ends at the first unescaped '=', ':' or whitespace.
    size_t sep = 0;
    while (sep < logical.size()) {
      const char c = logical[sep];
      if (c == '\\') {
        sep += 2;
        continue;
      }
      if (c == '=' || c == ':' || c == ' ' || c == '\t') break;
      ++sep;
    }
    std::string key;
    appendUnescaped(key, std::string_view(logical).substr(0, std::min(sep, logical.size())));
    std::string_view rest =
        sep < logical.size() ? std::string_view(logical).substr(sep) : std::string_view{};
    rest = detail::trim(rest);
    if (!rest.empty() && (rest.front() == '=' || rest.front() == ':')) rest.remove_prefix(1);
    const auto first = rest.find_first_not_of(" \t\f");
    rest = first == std::string_view::npos ? std::string_view{} : rest.substr(first);
    std::string value;
    appendUnescaped(value, rest);
    out.insert_or_assign(std::move(key), std::move(value));
    logical.clear();
  }
  return out;
}

std::map<std::string, std::string> Config::readProperties(const std::filesystem::path& path) {
  auto text = readFile(path);
  if (!text) fail(path.string(), "cannot read the properties file");
  return parseProperties(*text);
}

const ConfigDef& Config::definitions() const {
  return def_ ? *def_ : emptyDef();
}

bool Config::has(std::string_view key) const {
  return values_.contains(std::string(key));
}

std::optional<std::string> Config::get(std::string_view key) const {
  if (auto it = values_.find(std::string(key)); it != values_.end()) return it->second;
  if (const auto* def = definitions().find(key)) return def->default_value;
  return std::nullopt;
}

std::string Config::getString(std::string_view key) const {
  auto value = get(key);
  if (!value) fail(key, "is required and has no default");
  return *value;
}

int64_t Config::getLong(std::string_view key) const {
  auto value = detail::parseLong(getString(key));
  if (!value) fail(key, fmt::format("'{}' is not an integer", getString(key)));
  return *value;
}

int32_t Config::getInt(std::string_view key) const {
  const int64_t value = getLong(key);
  if (value < INT32_MIN || value > INT32_MAX) fail(key, "is out of the 32-bit integer range");
  return static_cast<int32_t>(value);
}

double Config::getDouble(std::string_view key) const {
  auto value = detail::parseDouble(getString(key));
  if (!value) fail(key, fmt::format("'{}' is not a number", getString(key)));
  return *value;
}

bool Config::getBoolean(std::string_view key) const {
  auto value = detail::parseBoolean(getString(key));
  if (!value) fail(key, fmt::format("'{}' is not true or false", getString(key)));
  return *value;
}

std::vector<std::string> Config::getList(std::string_view key) const {
  auto value = get(key);
  return value ? detail::parseList(*value) : std::vector<std::string>{};
}

std::map<std::string, std::string> Config::withPrefix(std::string_view prefix) const {
  std::map<std::string, std::string> out;
  for (auto it = values_.lower_bound(std::string(prefix));
       it != values_.end() && it->first.starts_with(prefix); ++it) {
    out.emplace(it->first.substr(prefix.size()), it->second);
  }
  return out;
}

bool Config::isSecretKey(std::string_view key) {
  return key.ends_with("password") || key.ends_with("sasl.jaas.config") ||
         key.ends_with("ssl.key.pem") || key.ends_with("client.secret") || key.ends_with("secret");
}

std::string Config::displayValue(std::string_view key) const {
  auto value = get(key);
  if (!value) return "";
  const auto* def = definitions().find(key);
  if (isSecretKey(key) || (def && def->type == ConfigDef::Type::kPassword)) return "[hidden]";
  return redactPasswords(*value);  // e.g. a connection URL's own password
}

std::string Config::redactPasswords(std::string_view text) {
  std::string s(text);
  static const std::regex userinfo(R"(([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@?\s]*):[^@/?\s]*@)");
  s = std::regex_replace(s, userinfo, "$1:[hidden]@");
  static const std::regex query(R"(([?&;](ssl)?password=)[^&;]*)");
  s = std::regex_replace(s, query, "$1[hidden]");
  static const std::regex spaced(R"((^|\s)(ssl)?password\s*=\s*('(\\.|[^'])*'|\S+))");
  s = std::regex_replace(s, spaced, "$1$2password=[hidden]");
  return s;
}

}  // namespace ksink
