#include "transform_support.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <ctime>

#include "ksink/config_exception.h"
#include "ksink/detail/config_parse.h"

namespace ksink::detail {

void defineReplaceNullWithDefault(ConfigDef& def) {
  def.define(std::string(kReplaceNullWithDefault), ConfigDef::Type::kBoolean, "true",
             ConfigDef::Importance::kMedium,
             "Whether a null field that has a default value takes the default (true) or stays "
             "null (false).");
}

std::vector<std::string> splitList(std::string_view text) {
  std::vector<std::string> items;
  while (true) {
    const auto comma = text.find(',');
    const auto item = trim(text.substr(0, comma));
    if (!item.empty()) items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return items;
}

std::vector<std::string> javaSplit(std::string_view text, char separator) {
  if (text.empty()) return {std::string()};
  std::vector<std::string> parts;
  while (true) {
    const auto at = text.find(separator);
    parts.emplace_back(text.substr(0, at));
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  while (!parts.empty() && parts.back().empty()) parts.pop_back();
  return parts;
}

ConfigDef::Validator nonEmptyString() {
  return [](std::string_view value) -> std::optional<std::string> {
    if (value.empty()) return "String must be non-empty";
    return std::nullopt;
  };
}

ConfigDef::Validator nonEmptyList() {
  return [](std::string_view value) -> std::optional<std::string> {
    if (splitList(value).empty()) return "Empty list";
    return std::nullopt;
  };
}

namespace {

std::string_view kindName(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::kNull:
      return "null";
    case Value::Kind::kBoolean:
      return "boolean";
    case Value::Kind::kInt:
      return "integer";
    case Value::Kind::kDouble:
      return "floating-point number";
    case Value::Kind::kString:
      return "string";
    case Value::Kind::kBytes:
      return "bytes";
    case Value::Kind::kArray:
      return "array";
    case Value::Kind::kObject:
      return "object";
  }
  return "value";
}

}  // namespace

const Schema& requireStruct(const SchemaAndValue& sv, std::string_view purpose) {
  if (!sv.schema || sv.schema->type != Schema::Type::kStruct ||
      sv.value.kind() != Value::Kind::kObject)
    throw ConversionError(fmt::format("Only Struct objects supported for [{}], found: {}", purpose,
                                      sv.schema ? format_as(*sv.schema) : kindName(sv.value)));
  return *sv.schema;
}

const Value::Object& requireMap(const Value& value, std::string_view purpose) {
  if (value.kind() != Value::Kind::kObject)
    throw ConversionError(
        fmt::format("Only Map objects supported in absence of schema for [{}], found: {}", purpose,
                    kindName(value)));
  return value.asObject();
}

Value fieldValue(const Value::Object& object, size_t index, const Schema::Field& field,
                 bool replace_null_with_default) {
  // A struct value follows its schema's field order; look the name up when it does not.
  const Value* v = nullptr;
  if (index < object.size() && object[index].first == field.name) {
    v = &object[index].second;
  } else {
    for (const auto& [name, value] : object)
      if (name == field.name) v = &value;
  }
  if ((!v || v->isNull()) && replace_null_with_default && field.schema &&
      field.schema->default_value)
    return *field.schema->default_value;
  return v ? *v : Value();
}

void putEntry(Value::Object& object, std::string_view name, Value value) {
  for (auto& [n, v] : object)
    if (n == name) {
      v = std::move(value);
      return;
    }
  object.emplace_back(std::string(name), std::move(value));
}

std::shared_ptr<const Schema> logicalSchema(Schema::Logical logical, bool optional) {
  static const auto table = [] {
    std::array<std::array<std::shared_ptr<const Schema>, 2>, 3> t;
    const std::array<std::pair<std::string_view, Schema::Type>, 3> kinds = {
        std::pair{Schema::kDateName, Schema::Type::kInt32},
        std::pair{Schema::kTimeName, Schema::Type::kInt32},
        std::pair{Schema::kTimestampName, Schema::Type::kInt64}};
    for (size_t i = 0; i < kinds.size(); ++i)
      for (int o = 0; o < 2; ++o) {
        auto s = std::make_shared<Schema>();
        s->type = kinds[i].second;
        s->name = std::string(kinds[i].first);
        s->version = 1;
        s->optional = o == 1;
        t[i][static_cast<size_t>(o)] = std::move(s);
      }
    return t;
  }();
  size_t i = 0;
  switch (logical) {
    case Schema::Logical::kDate:
      i = 0;
      break;
    case Schema::Logical::kTime:
      i = 1;
      break;
    case Schema::Logical::kTimestamp:
      i = 2;
      break;
    default:
      throw std::invalid_argument("logicalSchema: not a date or time type");
  }
  return table[i][optional ? 1 : 0];
}

std::shared_ptr<const Schema> withOptional(const std::shared_ptr<const Schema>& schema,
                                           bool optional) {
  if (schema->optional == optional) return schema;
  if (schema->name.empty() && schema->isPrimitive() && !schema->default_value &&
      schema->doc.empty() && !schema->version && schema->parameters.empty())
    return Schema::of(schema->type, optional);
  auto out = std::make_shared<Schema>(*schema);
  out->optional = optional;
  return out;
}

// --- Field paths --------------------------------------------------------------------------------

FieldPath::FieldPath(std::string_view path, bool v2, std::string_view key) {
  if (!v2) {
    steps_.emplace_back(path);
    return;
  }
  const auto incomplete = [&](size_t at) {
    throw configError(std::string(key),
                      fmt::format("Incomplete backtick pair in path: [{}], consider adding a "
                                  "backslash before backtick at position {} to escape it",
                                  path, at));
  };
  size_t idx = 0;
  while (idx < path.size()) {
    if (path[idx] != '`') {
      const auto dot = path.find('.', idx);
      steps_.emplace_back(path.substr(idx, dot == std::string_view::npos ? path.npos : dot - idx));
      if (dot == std::string_view::npos) break;
      idx = dot + 1;
      continue;
    }
    const size_t backtick_at = idx;
    ++idx;
    std::string field;
    size_t start = idx;
    while (true) {
      idx = path.find('`', idx);
      if (idx == std::string_view::npos) incomplete(backtick_at);
      const bool escaped = path[idx - 1] == '\\';
      if (idx >= path.size() - 1) {
        if (escaped) incomplete(backtick_at);
        field.append(path.substr(start, idx - start));
        steps_.push_back(std::move(field));
        ++idx;
        break;
      }
      if (path[idx + 1] != '.') {
        ++idx;
        continue;
      }
      if (escaped) {
        field.append(path.substr(start, idx - 1 - start));
        field.push_back('`');
        ++idx;
        start = idx;
        continue;
      }
      field.append(path.substr(start, idx - start));
      steps_.push_back(std::move(field));
      idx += 2;
      break;
    }
  }
  if (!path.empty() && path.back() == '.') steps_.emplace_back();
  if (steps_.empty()) steps_.emplace_back();
}

const Schema::Field* FieldPath::fieldFrom(const Schema& schema) const {
  const Schema* current = &schema;
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (current->type != Schema::Type::kStruct)
      throw ConversionError(
          fmt::format("Cannot look up fields on non-struct type {}", format_as(*current)));
    const auto* field = current->field(steps_[i]);
    if (!field || i + 1 == steps_.size()) return field;
    current = field->schema.get();
  }
  return nullptr;
}

Value FieldPath::valueFrom(const Schema& schema, const Value& value,
                           bool replace_null_with_default) const {
  const Schema* current_schema = &schema;
  Value current = value;
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (current.isNull()) return Value();
    if (current_schema->type != Schema::Type::kStruct || current.kind() != Value::Kind::kObject)
      throw ConversionError(
          fmt::format("Only Struct objects supported for [nested field access], found: {}",
                      format_as(*current_schema)));
    const auto& fields = current_schema->fields;
    size_t index = 0;
    while (index < fields.size() && fields[index].name != steps_[i]) ++index;
    if (index == fields.size()) return Value();
    const bool last = i + 1 == steps_.size();
    // Intermediate steps always take a struct's default, as Connect's Struct.get does.
    Value next = fieldValue(current.asObject(), index, fields[index],
                            last ? replace_null_with_default : true);
    current_schema = fields[index].schema.get();
    current = std::move(next);
  }
  return current;
}

Value FieldPath::valueFrom(const Value& value) const {
  const Value* current = &value;
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (current->isNull()) return Value();
    if (current->kind() != Value::Kind::kObject)
      throw ConversionError(fmt::format(
          "Only Map objects supported in absence of schema for [nested field access], found: {}",
          kindName(*current)));
    current = current->find(steps_[i]);
    if (!current) return Value();
  }
  return *current;
}

void defineFieldSyntaxVersion(ConfigDef& def) {
  def.define("field.syntax.version", ConfigDef::Type::kString, "V1", ConfigDef::Importance::kHigh,
             "V1: a field name at the root of the struct or map; V2: a dotted path to a nested "
             "field, with backticks around names that contain dots (`foo.bar`.baz).",
             [](std::string_view value) -> std::optional<std::string> {
               const auto v = trim(value);
               if (v == "V1" || v == "v1" || v == "V2" || v == "v2") return std::nullopt;
               return fmt::format("'{}' is not one of [V1, V2] (Unrecognized field syntax version)",
                                  value);
             });
}

bool fieldSyntaxIsV2(std::string_view value) {
  const auto v = trim(value);
  return v == "V2" || v == "v2";
}

// --- Java regular expressions -------------------------------------------------------------------

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

// --- Dates --------------------------------------------------------------------------------------

int64_t daysFromCivil(int64_t y, int64_t m, int64_t d) {
  // Lenient like Java's calendar: months outside 1..12 roll the year.
  y += floorDiv(m - 1, 12);
  m = m - 1 - floorDiv(m - 1, 12) * 12 + 1;
  y -= m <= 2;
  const int64_t era = floorDiv(y, 400);
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + 1 - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468 + (d - 1);
}

void civilFromDays(int64_t z, int64_t& year, int64_t& month, int64_t& day) {
  z += 719468;
  const int64_t era = floorDiv(z, 146097);
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  day = doy - (153 * mp + 2) / 5 + 1;
  month = mp < 10 ? mp + 3 : mp - 9;
  year = yoe + era * 400 + (month <= 2);
}

std::optional<DateFormat> DateFormat::compile(std::string_view pattern, std::string* error) {
  DateFormat out;
  out.pattern_ = std::string(pattern);
  const auto fail = [&](std::string why) -> std::optional<DateFormat> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  const auto literal = [&](std::string_view s) {
    if (out.tokens_.empty() || out.tokens_.back().letter != 0) out.tokens_.push_back({});
    out.tokens_.back().literal.append(s);
  };
  for (size_t i = 0; i < pattern.size();) {
    const char c = pattern[i];
    if (c == '\'') {
      if (i + 1 < pattern.size() && pattern[i + 1] == '\'') {
        literal("'");
        i += 2;
        continue;
      }
      std::string text;
      size_t j = i + 1;
      while (true) {
        if (j >= pattern.size())
          return fail(fmt::format("unterminated quote in date format '{}'", pattern));
        if (pattern[j] == '\'') {
          if (j + 1 < pattern.size() && pattern[j + 1] == '\'') {
            text.push_back('\'');
            j += 2;
            continue;
          }
          break;
        }
        text.push_back(pattern[j++]);
      }
      literal(text);
      i = j + 1;
      continue;
    }
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      if (std::string_view("yMdHmsS").find(c) == std::string_view::npos)
        return fail(fmt::format(
            "date format '{}' uses '{}', which ksink does not support (supported: y M d H m s S "
            "and quoted literal text)",
            pattern, c));
      int count = 0;
      while (i < pattern.size() && pattern[i] == c) ++count, ++i;
      if (c == 'M' && count >= 3)
        return fail(fmt::format(
            "date format '{}' uses month names ('{}'), which ksink does not support (use MM)",
            pattern, std::string(static_cast<size_t>(count), 'M')));
      out.tokens_.push_back({c, count, {}});
      continue;
    }
    literal(std::string_view(&pattern[i], 1));
    ++i;
  }
  return out;
}

std::string DateFormat::format(int64_t epoch_millis) const {
  const int64_t days = floorDiv(epoch_millis, 86400000);
  const int64_t ms_of_day = epoch_millis - days * 86400000;
  int64_t year = 0, month = 0, day = 0;
  civilFromDays(days, year, month, day);
  std::string out;
  for (const auto& t : tokens_) {
    int64_t v = 0;
    int width = t.count;
    switch (t.letter) {
      case 0:
        out += t.literal;
        continue;
      case 'y':
        // Java prints the year of era; a 2-letter field is the last two digits.
        v = year > 0 ? year : 1 - year;
        if (t.count == 2) v %= 100;
        break;
      case 'M':
        v = month;
        break;
      case 'd':
        v = day;
        break;
      case 'H':
        v = ms_of_day / 3600000;
        break;
      case 'm':
        v = ms_of_day / 60000 % 60;
        break;
      case 's':
        v = ms_of_day / 1000 % 60;
        break;
      case 'S':
        v = ms_of_day % 1000;
        break;
    }
    out += fmt::format("{:0{}}", v, width);
  }
  return out;
}

std::optional<int64_t> DateFormat::parse(std::string_view text) const {
  int64_t year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, millis = 0;
  size_t pos = 0;
  for (size_t k = 0; k < tokens_.size(); ++k) {
    const auto& t = tokens_[k];
    if (t.letter == 0) {
      if (text.substr(pos, t.literal.size()) != t.literal) return std::nullopt;
      pos += t.literal.size();
      continue;
    }
    // A number directly followed by another number field takes exactly its width (Java's
    // abutting fields, as in yyyyMMdd); otherwise every digit there is.
    const bool abutting = k + 1 < tokens_.size() && tokens_[k + 1].letter != 0;
    bool negative = false;
    if (pos < text.size() && (text[pos] == '-' || text[pos] == '+') && t.letter != 'S' &&
        !abutting) {
      negative = text[pos] == '-';
      ++pos;
    }
    const size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9' &&
           (!abutting || pos - start < static_cast<size_t>(t.count)))
      ++pos;
    if (pos == start || pos - start > 18) return std::nullopt;
    int64_t v = 0;
    std::from_chars(text.data() + start, text.data() + pos, v);
    if (negative) v = -v;
    switch (t.letter) {
      case 'y':
        if (t.count <= 2 && pos - start == 2) {
          // Java reads a 2-digit year into the century around now: 80 years back, 20 ahead.
          const std::time_t now = std::time(nullptr);
          std::tm tm{};
          gmtime_r(&now, &tm);
          const int64_t this_year = tm.tm_year + 1900;
          int64_t y = (this_year - 80) / 100 * 100 + v;
          if (y < this_year - 80) y += 100;
          v = y;
        }
        year = v;
        break;
      case 'M':
        month = v;
        break;
      case 'd':
        day = v;
        break;
      case 'H':
        hour = v;
        break;
      case 'm':
        minute = v;
        break;
      case 's':
        second = v;
        break;
      case 'S':
        millis = v;
        break;
    }
  }
  return daysFromCivil(year, month, day) * 86400000 + hour * 3600000 + minute * 60000 +
         second * 1000 + millis;
}

// --- Numbers ------------------------------------------------------------------------------------

std::string javaFloatToString(double value, bool float32) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  // Shortest round-trip digits in scientific form, then laid out as Java does.
  char buf[64];
  const auto res = float32
                       ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(value),
                                       std::chars_format::scientific)
                       : std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  std::string out;
  if (sci.front() == '-') {
    out.push_back('-');
    sci.erase(0, 1);
  }
  const auto e = sci.find('e');
  const int exponent = std::stoi(sci.substr(e + 1));
  std::string digits = sci.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    if (exponent >= 0) {
      const size_t int_len = static_cast<size_t>(exponent) + 1;
      if (digits.size() <= int_len) {
        out += digits + std::string(int_len - digits.size(), '0') + ".0";
      } else {
        out += digits.substr(0, int_len) + "." + digits.substr(int_len);
      }
    } else {
      out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    }
    return out;
  }
  out += digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0");
  out += "E" + std::to_string(exponent);
  return out;
}

}  // namespace ksink::detail
