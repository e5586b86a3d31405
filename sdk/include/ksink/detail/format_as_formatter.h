// fmt's formatter for a ksink class that has a format_as(): fmt 9 (Debian 12) honours format_as
// only for enums, so each such class specializes fmt::formatter with this base to print through
// format_as with `{}` (fmt 10 finds format_as itself).
#pragma once

#include <fmt/format.h>

#include <string_view>

namespace ksink::detail {

template <typename T>
struct FormatAsFormatter : fmt::formatter<std::string_view> {
  template <typename FormatContext>
  auto format(const T& value, FormatContext& ctx) const {
    return fmt::formatter<std::string_view>::format(format_as(value), ctx);
  }
};

}  // namespace ksink::detail
