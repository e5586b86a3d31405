// CopyTextWriter: builds the data of a `COPY ... FROM STDIN` stream in PostgreSQL's text format,
// the fallback when some value of a batch has no binary form the sink can produce (a string bound
// for a numeric, date or domain column, an unusual uuid spelling...): the server parses each field
// with the column type's input function, exactly as for a literal.
//
// Fields are tab-separated, rows end with '\n', NULL is \N, and backslash, tab, newline and
// carriage return inside a value are backslash-escaped (doc/src/sgml/ref/copy.sgml, "Text Format").
// Single-threaded.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ksink::postgres {

class CopyTextWriter {
 public:
  void beginRow() { first_ = true; }
  void null();
  // Any text; escaped as needed.
  void text(std::string_view v);
  // bytea as "\x<hex>".
  void bytea(std::string_view v);
  void endRow() { buffer_.push_back('\n'); }

  std::string_view buffer() const { return buffer_; }
  size_t size() const { return buffer_.size(); }
  void clearBuffer() { buffer_.clear(); }

  // An array literal: {"a","b",NULL}; elements quoted and escaped for array_in.
  static std::string arrayLiteral(std::span<const std::optional<std::string>> elements);

 private:
  void separator();

  std::string buffer_;
  bool first_ = true;
};

}  // namespace ksink::postgres
