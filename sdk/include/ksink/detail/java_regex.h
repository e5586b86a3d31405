// Java regular expressions on std::regex, for the keys Kafka Connect reads as Java patterns (the
// RegexRouter and TopicNameMatches transforms, a source's topic.creation.<group>.include/exclude).
// Not connector API. Immutable once compiled; std::regex matching is const: any thread.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>

#include "ksink/config_def.h"

namespace ksink::detail {

// A Java regular expression run with std::regex (ECMAScript). Java-only syntax ECMAScript lacks
// (possessive quantifiers, named groups, inline flags, \A \Z \z, atomic groups, lookbehind) is
// refused at configuration.
class JavaRegex {
 public:
  // nullopt and `error` set when `pattern` cannot be served.
  static std::optional<JavaRegex> compile(std::string_view pattern, std::string* error);
  // A validator for a key holding a Java regular expression.
  static ConfigDef::Validator validator();

  // Java's Matcher.matches(): the whole text matches.
  bool matches(const std::string& text) const;
  // Java's Matcher.replaceFirst(replacement) with `$n` group references and `\` escapes.
  std::string replaceFirst(const std::string& text, std::string_view replacement) const;
  // Why `replacement` cannot be used with this pattern (a group it does not have), or nullopt.
  std::optional<std::string> checkReplacement(std::string_view replacement) const;

 private:
  explicit JavaRegex(std::regex regex, size_t groups) : regex_(std::move(regex)), groups_(groups) {}
  std::regex regex_;
  size_t groups_ = 0;
};

}  // namespace ksink::detail
