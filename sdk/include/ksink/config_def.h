// ConfigDef: the declared configuration keys of a component (name, type, default, importance,
// validation, documentation), like Kafka Connect's ConfigDef.
//
// A definition set is built once (usually in a function returning a static) and is read-only after;
// reading it from several threads is safe.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/config_exception.h"

namespace ksink {

class ConfigDef {
 public:
  enum class Type { kBoolean, kInt, kLong, kDouble, kString, kList, kPassword };
  enum class Importance { kHigh, kMedium, kLow };
  // Returns the reason the (already type-checked) value is invalid, or nullopt when it is fine.
  using Validator = std::function<std::optional<std::string>(std::string_view value)>;
  // A rule over the whole configuration, for keys that depend on other keys (e.g. a transforms=
  // chain, whose aliases name further keys): every problem it finds, empty when none.
  using Check =
      std::function<std::vector<ConfigProblem>(const std::map<std::string, std::string>& values)>;

  struct Key {
    std::string name;
    Type type = Type::kString;
    std::optional<std::string> default_value;  // nullopt = required
    Importance importance = Importance::kMedium;
    std::string doc;
    Validator validator;
    // A tuning key accepted without a meaning here: what is done instead (ignoredIn()).
    std::optional<std::string> ignored_because;
  };

  ConfigDef& define(Key key);
  ConfigDef& define(std::string name, Type type, std::optional<std::string> default_value,
                    Importance importance, std::string doc, Validator validator = {}) {
    return define(Key{std::move(name), type, std::move(default_value), importance, std::move(doc),
                      std::move(validator), std::nullopt});
  }
  // A key carried over from another connector (Kafka Connect's, Confluent's) that is accepted and
  // ignored: known, so it is neither refused nor warned of as unknown, and named by ignoredIn()
  // with `instead`, what is done in its place. `origin` names whose key it is, for its doc.
  ConfigDef& defineIgnored(std::string name, std::string_view origin, std::string instead);
  // The same for a table of them.
  struct IgnoredKey {
    const char* key;
    const char* instead;
  };
  ConfigDef& defineIgnored(std::span<const IgnoredKey> keys, std::string_view origin) {
    for (const auto& k : keys) defineIgnored(k.key, origin, k.instead);
    return *this;
  }
  // A key carried over from another connector that ksink serves at some of its values only: every
  // item of a value must be one of `supported` (any case), else it is refused with `why` (see
  // supportedOnly()). Its default is its first supported value, its doc "<origin> key: <why>".
  struct SupportedOnlyKey {
    const char* key;
    Type type;
    std::vector<std::string> supported;  // empty: the key may only be left unset (or empty)
    const char* why;
  };
  ConfigDef& defineSupportedOnly(std::span<const SupportedOnlyKey> keys, std::string_view origin);
  // One line per ignored key `values` sets: "<key>: no meaning in ksink, ignored (<instead>)".
  std::vector<std::string> ignoredIn(const std::map<std::string, std::string>& values) const;
  // Adds a rule over the whole configuration, run by validate() after the keys' own checks.
  ConfigDef& check(Check check);
  // Keys under `prefix` belong to a part that checks them itself (a Kafka client's properties,
  // the transforms' own keys): they are known here without being defined one by one.
  ConfigDef& claimPrefix(std::string prefix);
  // Adds every key, prefix and rule of `other` (used to combine the worker's and a sink's
  // definitions).
  ConfigDef& include(const ConfigDef& other);

  const Key* find(std::string_view name) const;
  // `name`'s value in `values`, else its default here, else "" (for code that reads keys after
  // validate() reported their problems, where a Config built on this definition would throw).
  std::string valueOf(const std::map<std::string, std::string>& values,
                      std::string_view name) const;
  // Whether `name` is defined here or lies under a claimed prefix.
  bool claims(std::string_view name) const;
  const std::map<std::string, Key, std::less<>>& keys() const { return keys_; }

  // Every problem of `values` against the definitions: missing required keys, values that do not
  // parse as their type, validator failures, then the rules' problems. Keys not defined here are
  // ignored.
  std::vector<ConfigProblem> validate(const std::map<std::string, std::string>& values) const;

  // Validators for the common cases.
  static Validator atLeast(int64_t min);
  static Validator oneOf(std::vector<std::string> allowed);
  static Validator oneOfAnyCase(std::vector<std::string> allowed);  // "UPSERT" for "upsert"
  static Validator nonEmpty();
  // For a key a connector declares only to refuse what it does not implement: every item of the
  // (list) value must be one of `allowed` (any case); else "'<item>' is not supported: <why>".
  static Validator supportedOnly(std::vector<std::string> allowed, std::string why);

 private:
  std::map<std::string, Key, std::less<>> keys_;
  std::vector<std::string> prefixes_;
  std::vector<Check> checks_;
};

}  // namespace ksink
