#include "ksink/config_def.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "ksink/detail/config_parse.h"

namespace ksink {
namespace {

// Why `value` is not of `type`, or nullopt when it is.
std::optional<std::string> typeProblem(ConfigDef::Type type, std::string_view value) {
  using Type = ConfigDef::Type;
  switch (type) {
    case Type::kInt: {
      auto v = detail::parseLong(value);
      if (!v || *v < INT32_MIN || *v > INT32_MAX)
        return fmt::format("'{}' is not a 32-bit integer", value);
      return std::nullopt;
    }
    case Type::kLong:
      if (!detail::parseLong(value)) return fmt::format("'{}' is not an integer", value);
      return std::nullopt;
    case Type::kDouble:
      if (!detail::parseDouble(value)) return fmt::format("'{}' is not a number", value);
      return std::nullopt;
    case Type::kBoolean:
      if (!detail::parseBoolean(value)) return fmt::format("'{}' is not true or false", value);
      return std::nullopt;
    case Type::kString:
    case Type::kList:
    case Type::kPassword:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

ConfigDef& ConfigDef::define(Key key) {
  std::string name = key.name;
  keys_.insert_or_assign(std::move(name), std::move(key));
  return *this;
}

ConfigDef& ConfigDef::check(Check check) {
  checks_.push_back(std::move(check));
  return *this;
}

ConfigDef& ConfigDef::claimPrefix(std::string prefix) {
  if (std::find(prefixes_.begin(), prefixes_.end(), prefix) == prefixes_.end())
    prefixes_.push_back(std::move(prefix));
  return *this;
}

ConfigDef& ConfigDef::defineIgnored(std::string name, std::string_view origin,
                                    std::string instead) {
  auto doc = fmt::format("{} key, accepted and ignored: {}", origin, instead);
  return define(Key{std::move(name),
                    Type::kString,
                    "",
                    Importance::kLow,
                    std::move(doc),
                    {},
                    std::move(instead)});
}

ConfigDef& ConfigDef::defineSupportedOnly(std::span<const SupportedOnlyKey> keys,
                                          std::string_view origin) {
  for (const auto& k : keys)
    define(k.key, k.type, k.supported.empty() ? "" : k.supported.front(), Importance::kLow,
           fmt::format("{} key: {}", origin, k.why), supportedOnly(k.supported, k.why));
  return *this;
}

std::vector<std::string> ConfigDef::ignoredIn(
    const std::map<std::string, std::string>& values) const {
  std::vector<std::string> out;
  for (const auto& [name, key] : keys_)
    if (key.ignored_because && values.contains(name))
      out.push_back(
          fmt::format("{}: no meaning in ksink, ignored ({})", name, *key.ignored_because));
  return out;
}

ConfigDef& ConfigDef::include(const ConfigDef& other) {
  for (const auto& [name, key] : other.keys_) keys_.insert_or_assign(name, key);
  for (const auto& prefix : other.prefixes_) claimPrefix(prefix);
  checks_.insert(checks_.end(), other.checks_.begin(), other.checks_.end());
  return *this;
}

const ConfigDef::Key* ConfigDef::find(std::string_view name) const {
  auto it = keys_.find(name);
  return it == keys_.end() ? nullptr : &it->second;
}

std::string ConfigDef::valueOf(const std::map<std::string, std::string>& values,
                               std::string_view name) const {
  if (const auto it = values.find(std::string(name)); it != values.end()) return it->second;
  const auto* key = find(name);
  return key && key->default_value ? *key->default_value : "";
}

bool ConfigDef::claims(std::string_view name) const {
  return find(name) || std::any_of(prefixes_.begin(), prefixes_.end(),
                                   [&](const auto& prefix) { return name.starts_with(prefix); });
}

std::vector<ConfigProblem> ConfigDef::validate(
    const std::map<std::string, std::string>& values) const {
  std::vector<ConfigProblem> problems;
  for (const auto& [name, key] : keys_) {
    auto it = values.find(name);
    if (it == values.end()) {
      if (!key.default_value) problems.push_back({name, "is required and has no default"});
      continue;
    }
    if (auto problem = typeProblem(key.type, it->second)) {
      problems.push_back({name, *problem});
      continue;
    }
    if (key.validator) {
      if (auto problem = key.validator(it->second)) problems.push_back({name, *problem});
    }
  }
  // A check included twice (two definitions that both include a chain's keys) says it once.
  for (const auto& check : checks_)
    for (auto& found : check(values))
      if (std::ranges::none_of(problems, [&](const ConfigProblem& p) {
            return p.key == found.key && p.reason == found.reason;
          }))
        problems.push_back(std::move(found));
  return problems;
}

ConfigDef::Validator ConfigDef::atLeast(int64_t min) {
  return [min](std::string_view value) -> std::optional<std::string> {
    auto v = detail::parseLong(value);
    if (v && *v >= min) return std::nullopt;
    return fmt::format("must be at least {}, got '{}'", min, value);
  };
}

ConfigDef::Validator ConfigDef::oneOf(std::vector<std::string> allowed) {
  return [allowed = std::move(allowed)](std::string_view value) -> std::optional<std::string> {
    for (const auto& a : allowed)
      if (a == detail::trim(value)) return std::nullopt;
    return fmt::format("'{}' is not one of [{}]", value, fmt::join(allowed, ", "));
  };
}

ConfigDef::Validator ConfigDef::oneOfAnyCase(std::vector<std::string> allowed) {
  return [allowed = std::move(allowed)](std::string_view value) -> std::optional<std::string> {
    const auto v = detail::trim(value);
    for (const auto& a : allowed)
      if (detail::equalsIgnoreCase(a, v)) return std::nullopt;
    return fmt::format("'{}' is not one of [{}]", value, fmt::join(allowed, ", "));
  };
}

ConfigDef::Validator ConfigDef::supportedOnly(std::vector<std::string> allowed, std::string why) {
  return [allowed = std::move(allowed),
          why = std::move(why)](std::string_view value) -> std::optional<std::string> {
    for (const auto& item : detail::parseList(value)) {
      const bool ok = std::any_of(allowed.begin(), allowed.end(), [&](const std::string& a) {
        return detail::equalsIgnoreCase(a, item);
      });
      if (!ok) return fmt::format("'{}' is not supported: {}", item, why);
    }
    return std::nullopt;
  };
}

ConfigDef::Validator ConfigDef::nonEmpty() {
  return [](std::string_view value) -> std::optional<std::string> {
    if (!detail::trim(value).empty()) return std::nullopt;
    return "must not be empty";
  };
}

}  // namespace ksink
