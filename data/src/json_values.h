// JSON values as Kafka Connect's JsonConverter reads them, on simdjson's On Demand API: a value
// against its Connect schema (logical types, defaults, optional fields) or schemaless, and one
// document parsed whole (scalars too, nothing trailing, nesting bounded). Every malformed or
// mismatching input throws ConversionError saying what and where. Internal to the data model,
// used by JsonConverter and by the JSON schema reader; no state, so any thread.
#pragma once

#include <fmt/format.h>
#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>

#include "ksink/conversion_error.h"
#include "ksink/schema.h"
#include "ksink/value.h"

namespace ksink::json {

namespace od = simdjson::ondemand;

// Where in the document a conversion failed, built on the stack and formatted only on failure.
struct Path {
  const Path* parent = nullptr;
  std::string_view field;
  int64_t index = -1;

  std::string str() const {
    std::string out = parent ? parent->str() : std::string();
    if (index >= 0) return out + fmt::format("[{}]", index);
    if (!field.empty()) return out.empty() ? std::string(field) : out + "." + std::string(field);
    return out;
  }
};

[[noreturn]] void fail(const Path& path, std::string_view what);
void check(simdjson::error_code e, const Path& path, std::string_view what);

Value convertSchemaless(od::value v, const Path& path);
Value convertWithSchema(od::value v, const Schema& schema, const Path& path);

// Wraps `data` in [ ] so that scalar documents parse as values too; the caller checks that the
// wrapper holds exactly one element and that nothing trails it.
void wrap(std::string& buffer, std::string_view data);
// simdjson's On Demand parser trusts documents to nest less than its max_depth (it asserts, or
// worse, past it), so deeper input is refused before parsing.
void checkDepth(std::string_view data);

// parseWrapped for `data` whose nesting checkDepth() has already passed (it, or a document
// that contains it).
template <typename Convert>
auto parseWrappedDepthChecked(od::parser& parser, std::string& buffer, std::string_view data,
                              Convert&& convert) {
  wrap(buffer, data);
  const size_t len = buffer.size();
  buffer.resize(len + simdjson::SIMDJSON_PADDING, '\0');
  const Path root;
  od::document doc;
  check(parser.iterate(buffer.data(), len, buffer.size()).get(doc), root, "not valid JSON");
  od::array outer;
  check(doc.get_array().get(outer), root, "not valid JSON");
  std::optional<decltype(convert(std::declval<od::value>()))> result;
  for (auto item : outer) {
    od::value v;
    check(item.get(v), root, "not valid JSON");
    if (result) fail(root, "more than one JSON value");
    result.emplace(convert(v));
  }
  if (!result) fail(root, "no JSON value");
  const char* location = nullptr;
  if (!doc.current_location().get(location)) fail(root, "unexpected content after the JSON value");
  return std::move(*result);
}

// Parses `data` as one JSON document (in `buffer`, a reusable padded copy) and returns
// convert(the value).
template <typename Convert>
auto parseWrapped(od::parser& parser, std::string& buffer, std::string_view data,
                  Convert&& convert) {
  checkDepth(data);
  return parseWrappedDepthChecked(parser, buffer, data, std::forward<Convert>(convert));
}

}  // namespace ksink::json
