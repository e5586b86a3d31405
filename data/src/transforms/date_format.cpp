#include "date_format.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <ctime>

#include "ksink/civil_date.h"

namespace ksink::detail {

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
      if (std::string_view("yMdHmsSXZz").find(c) == std::string_view::npos)
        return fail(fmt::format(
            "date format '{}' uses '{}', which ksink does not support (supported: y M d H m s S, "
            "the zones X Z z, and quoted literal text)",
            pattern, c));
      int count = 0;
      while (i < pattern.size() && pattern[i] == c) ++count, ++i;
      if (c == 'X' && count > 3)  // as SimpleDateFormat refuses it
        return fail(
            fmt::format("date format '{}': invalid ISO 8601 format: length={}", pattern, count));
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
  const auto [year, month, day] = civilFromDays(days);
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
      // The zone is always UTC (TimestampConverter's), spelled as SimpleDateFormat spells it.
      case 'X':
        out += 'Z';
        continue;
      case 'Z':
        out += "+0000";
        continue;
      case 'z':
        out += t.count >= 4 ? "Coordinated Universal Time" : "UTC";
        continue;
    }
    out += fmt::format("{:0{}}", v, width);
  }
  return out;
}

namespace {

// `count` digits at `pos` (advanced past them), or nullopt.
std::optional<int64_t> digits(std::string_view text, size_t& pos, size_t count) {
  if (pos + count > text.size()) return std::nullopt;
  int64_t v = 0;
  for (size_t i = 0; i < count; ++i) {
    const char c = text[pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  pos += count;
  return v;
}

// A numeric zone offset in minutes at `pos`: a sign, hh, then (per `minutes`) nothing, mm, or
// ":mm" (`colon`); nullopt when the text is not one.
std::optional<int64_t> numericOffset(std::string_view text, size_t& pos, bool minutes, bool colon) {
  if (pos >= text.size() || (text[pos] != '+' && text[pos] != '-')) return std::nullopt;
  const int64_t sign = text[pos] == '-' ? -1 : 1;
  size_t at = pos + 1;
  const auto hours = digits(text, at, 2);
  if (!hours) return std::nullopt;
  int64_t mins = 0;
  if (minutes) {
    if (colon && (at >= text.size() || text[at++] != ':')) return std::nullopt;
    const auto mm = digits(text, at, 2);
    if (!mm) return std::nullopt;
    mins = *mm;
  }
  if (*hours > 23 || mins > 59) return std::nullopt;  // as Java refuses them
  pos = at;
  return sign * (*hours * 60 + mins);
}

// SimpleDateFormat's zone fields as it parses them, as an offset in minutes:
//   X, XX, XXX  ISO 8601: "Z", or +hh / +hhmm / +hh:mm by the letter count
//   Z, z        RFC 822's +hhmm, or GMT (or UTC), optionally followed by +h:mm or +hh:mm;
//               zone names other than UTC are not read (Java knows them from its zone database)
std::optional<int64_t> parseZone(std::string_view text, size_t& pos, char letter, int count) {
  if (letter == 'X') {
    if (pos < text.size() && text[pos] == 'Z') return ++pos, 0;
    return numericOffset(text, pos, count >= 2, count == 3);
  }
  auto named = [&](std::string_view name) {  // in any case, as Java matches zone names
    if (text.size() < pos + name.size()) return false;
    for (size_t i = 0; i < name.size(); ++i)
      if (std::toupper(static_cast<unsigned char>(text[pos + i])) != name[i]) return false;
    return true;
  };
  for (const std::string_view name : {"GMT", "UTC"})
    if (named(name)) {
      pos += name.size();
      if (pos >= text.size() || (text[pos] != '+' && text[pos] != '-')) return 0;
      const int64_t sign = text[pos] == '-' ? -1 : 1;
      size_t at = pos + 1;
      const size_t start = at;
      while (at < text.size() && at - start < 2 && text[at] >= '0' && text[at] <= '9') ++at;
      if (at == start || at >= text.size() || text[at] != ':') return std::nullopt;
      int64_t hours = 0;
      for (size_t i = start; i < at; ++i) hours = hours * 10 + (text[i] - '0');
      ++at;
      const auto minutes = digits(text, at, 2);
      if (!minutes || hours > 23 || *minutes > 59) return std::nullopt;
      pos = at;
      return sign * (hours * 60 + *minutes);
    }
  return numericOffset(text, pos, true, false);
}

}  // namespace

std::optional<int64_t> DateFormat::parse(std::string_view text) const {
  int64_t year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, millis = 0;
  int64_t offset_minutes = 0;
  size_t pos = 0;
  for (size_t k = 0; k < tokens_.size(); ++k) {
    const auto& t = tokens_[k];
    if (t.letter == 0) {
      if (text.substr(pos, t.literal.size()) != t.literal) return std::nullopt;
      pos += t.literal.size();
      continue;
    }
    if (t.letter == 'X' || t.letter == 'Z' || t.letter == 'z') {
      const auto offset = parseZone(text, pos, t.letter, t.count);
      if (!offset) return std::nullopt;
      offset_minutes = *offset;
      continue;
    }
    // A number directly followed by another number field takes exactly its width (Java's
    // abutting fields, as in yyyyMMdd); otherwise every digit there is.
    const bool abutting =
        k + 1 < tokens_.size() && tokens_[k + 1].letter != 0 &&
        std::string_view("XZz").find(tokens_[k + 1].letter) == std::string_view::npos;
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
         second * 1000 + millis - offset_minutes * 60000;
}

}  // namespace ksink::detail
