#include "copy_text_writer.h"

namespace ksink::postgres {

void CopyTextWriter::separator() {
  if (!first_) buffer_.push_back('\t');
  first_ = false;
}

void CopyTextWriter::null() {
  separator();
  buffer_.append("\\N");
}

void CopyTextWriter::text(std::string_view v) {
  separator();
  size_t start = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    const char* escape = nullptr;
    switch (c) {
      case '\\':
        escape = "\\\\";
        break;
      case '\t':
        escape = "\\t";
        break;
      case '\n':
        escape = "\\n";
        break;
      case '\r':
        escape = "\\r";
        break;
      default:
        continue;
    }
    buffer_.append(v.substr(start, i - start));
    buffer_.append(escape);
    start = i + 1;
  }
  buffer_.append(v.substr(start));
}

void CopyTextWriter::bytea(std::string_view v) {
  separator();
  static constexpr char kHex[] = "0123456789abcdef";
  buffer_.append("\\\\x");  // the COPY escape of bytea's own "\x" prefix
  for (unsigned char c : v) {
    buffer_.push_back(kHex[c >> 4]);
    buffer_.push_back(kHex[c & 0xF]);
  }
}

std::string CopyTextWriter::arrayLiteral(std::span<const std::optional<std::string>> elements) {
  std::string out = "{";
  for (size_t i = 0; i < elements.size(); ++i) {
    if (i) out.push_back(',');
    if (!elements[i]) {
      out.append("NULL");
      continue;
    }
    out.push_back('"');
    for (char c : *elements[i]) {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    out.push_back('"');
  }
  out.push_back('}');
  return out;
}

}  // namespace ksink::postgres
