#include "ksink/detail/java_regex.h"

#include <fmt/format.h>

namespace ksink::detail {

namespace {

// Why std::regex (ECMAScript) would read `pattern` otherwise than java.util.regex, or nullopt.
std::optional<std::string> javaOnlySyntax(std::string_view p) {
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\') {
      if (i + 1 >= p.size()) return std::nullopt;  // std::regex reports the dangling escape
      const char e = p[i + 1];
      if (std::string_view("AZzGQEpPhHRXkK").find(e) != std::string_view::npos)
        return fmt::format("'\\{}' (Java-only escape)", e);
      ++i;
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      if (c == '&' && i + 1 < p.size() && p[i + 1] == '&') return "'&&' (class intersection)";
      if (c == '[') return "'[' inside a character class (class union)";
      continue;
    }
    if (c == '[') {
      in_class = true;
      if (i + 1 < p.size() && p[i + 1] == '^') ++i;
      if (i + 1 < p.size() && p[i + 1] == ']') ++i;  // a leading ']' is a literal
      continue;
    }
    if (c == '(' && i + 1 < p.size() && p[i + 1] == '?') {
      const char k = i + 2 < p.size() ? p[i + 2] : '\0';
      if (k != ':' && k != '=' && k != '!')
        return fmt::format("'(?{}' (named group, lookbehind, atomic group or inline flag)", k);
    }
    if ((c == '*' || c == '+' || c == '?' || c == '}') && i + 1 < p.size() && p[i + 1] == '+')
      return fmt::format("'{}+' (possessive quantifier)", c);
  }
  return std::nullopt;
}

}  // namespace

std::optional<JavaRegex> JavaRegex::compile(std::string_view pattern, std::string* error) {
  if (auto java = javaOnlySyntax(pattern)) {
    if (error) *error = fmt::format("Invalid regex: ksink does not support {}", *java);
    return std::nullopt;
  }
  try {
    std::regex re{std::string(pattern), std::regex::ECMAScript};
    const size_t groups = re.mark_count();
    return JavaRegex(std::move(re), groups);
  } catch (const std::regex_error& e) {
    if (error) *error = fmt::format("Invalid regex: {}", e.what());
    return std::nullopt;
  }
}

ConfigDef::Validator JavaRegex::validator() {
  return [](std::string_view value) -> std::optional<std::string> {
    std::string error;
    if (compile(value, &error)) return std::nullopt;
    return error;
  };
}

bool JavaRegex::matches(const std::string& text) const {
  return std::regex_match(text, regex_);
}

namespace {

// Walks a Java replacement string: `literal(text)` and `group(n)` in order; returns the first
// problem (Java's IllegalArgumentException / IndexOutOfBoundsException at replace time).
template <typename Literal, typename Group>
std::optional<std::string> walkReplacement(std::string_view r, size_t groups, Literal&& literal,
                                           Group&& group) {
  for (size_t i = 0; i < r.size(); ++i) {
    const char c = r[i];
    if (c == '\\') {
      if (++i >= r.size()) return "character to be escaped is missing";
      literal(std::string_view(&r[i], 1));
    } else if (c == '$') {
      if (++i >= r.size()) return "Illegal group reference: group index is missing";
      if (r[i] == '{') return "named group references (${name}) are not supported";
      if (r[i] < '0' || r[i] > '9') return "Illegal group reference";
      size_t n = static_cast<size_t>(r[i] - '0');
      if (n > groups) return fmt::format("No group {}", n);
      // Java takes further digits while they still name an existing group.
      while (i + 1 < r.size() && r[i + 1] >= '0' && r[i + 1] <= '9') {
        const size_t next = n * 10 + static_cast<size_t>(r[i + 1] - '0');
        if (next > groups) break;
        n = next;
        ++i;
      }
      group(n);
    } else {
      literal(std::string_view(&r[i], 1));
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> JavaRegex::checkReplacement(std::string_view replacement) const {
  return walkReplacement(
      replacement, groups_, [](std::string_view) {}, [](size_t) {});
}

std::string JavaRegex::replaceFirst(const std::string& text, std::string_view replacement) const {
  std::smatch m;
  if (!std::regex_search(text, m, regex_)) return text;
  std::string out(m.prefix().first, m.prefix().second);
  walkReplacement(
      replacement, groups_, [&](std::string_view s) { out.append(s); },
      [&](size_t n) {
        if (m[n].matched) out.append(m[n].first, m[n].second);
      });
  out.append(m.suffix().first, m.suffix().second);
  return out;
}

}  // namespace ksink::detail
