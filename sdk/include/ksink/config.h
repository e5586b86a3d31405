// Config: a configuration as string key/value pairs with typed getters.
//
// Built from a map or a .properties file (Java's format: `key=value` or `key: value`, `#`/`!`
// comments, `\` line continuation). Getters of a key declared in the ConfigDef the Config was built
// with fall back to the declared default; a Config built with a ConfigDef has been validated
// against it, so its typed getters cannot fail for declared keys. Immutable after construction;
// safe to share between threads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/config_def.h"
#include "ksink/config_exception.h"

namespace ksink {

class Config {
 public:
  Config() = default;
  explicit Config(std::map<std::string, std::string> values);
  // Validates `values` against `def`; throws ConfigException listing every problem.
  Config(std::map<std::string, std::string> values, ConfigDef def);

  // Parses a .properties file; throws ConfigException naming the file when it cannot be read.
  static std::map<std::string, std::string> readProperties(const std::filesystem::path& path);
  static std::map<std::string, std::string> parseProperties(std::string_view text);

  bool has(std::string_view key) const;
  // The value, or the declared default; nullopt when neither exists.
  std::optional<std::string> get(std::string_view key) const;

  // Typed getters: the value or the declared default. Throw ConfigException naming the key when
  // neither exists or the value does not parse.
  std::string getString(std::string_view key) const;
  int32_t getInt(std::string_view key) const;
  int64_t getLong(std::string_view key) const;
  double getDouble(std::string_view key) const;
  bool getBoolean(std::string_view key) const;
  // Comma-separated list; items trimmed, empty items and duplicates removed (Connect's `topics`).
  std::vector<std::string> getList(std::string_view key) const;

  // Keys starting with `prefix`, with the prefix removed.
  std::map<std::string, std::string> withPrefix(std::string_view prefix) const;
  const std::map<std::string, std::string>& values() const { return values_; }
  const ConfigDef& definitions() const;

  // The value as it may be shown in logs and status output: secrets are masked.
  std::string displayValue(std::string_view key) const;
  static bool isSecretKey(std::string_view key);
  // `text` (a URL or a libpq-style `key=value` string) with every password in it replaced by
  // "[hidden]": `scheme://user:password@` (also `jdbc:scheme://`), and `password=` /
  // `sslpassword=` parameters, whether in a query string or space-separated (quoted or not).
  static std::string redactPasswords(std::string_view text);

 private:
  std::map<std::string, std::string> values_;
  std::shared_ptr<const ConfigDef> def_;
};

}  // namespace ksink
