#include "ksink/detail/json_string.h"

namespace ksink::detail {

void appendJsonString(std::string& out, std::string_view s, bool upper_hex) {
  const char* hex = upper_hex ? "0123456789ABCDEF" : "0123456789abcdef";
  out += '"';
  // Runs that need no escape go in whole (most text is one run).
  while (!s.empty()) {
    size_t run = 0;
    while (run < s.size() && static_cast<unsigned char>(s[run]) >= 0x20 && s[run] != '"' &&
           s[run] != '\\')
      ++run;
    out.append(s.data(), run);
    s.remove_prefix(run);
    if (s.empty()) break;
    const char c = s.front();
    s.remove_prefix(1);
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (u < 0x20) {
          out += "\\u00";
          out += hex[u >> 4];
          out += hex[u & 0xF];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

}  // namespace ksink::detail
