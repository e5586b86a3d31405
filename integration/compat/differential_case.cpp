#include "differential_case.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <stdexcept>

namespace ksink::it {
namespace {

namespace fs = std::filesystem;
using simdjson::dom::element;
using simdjson::dom::element_type;

std::string text(element e, const std::string& what) {
  std::string_view s;
  if (e.get(s)) throw std::runtime_error(what + " is not a string");
  return std::string(s);
}

// A key or value as the bytes to produce; nullopt for null.
std::optional<std::string> bytes(element record, const char* side,
                                 const std::optional<simdjson::dom::object>& schemas) {
  const std::string text_key = std::string(side) + "_text";
  if (element t; !record[text_key].get(t)) return text(t, text_key);
  element e;
  if (record[side].get(e) || e.is_null()) return std::nullopt;
  element schema;
  if (e.type() == element_type::OBJECT && !e["schema"].get(schema) && schema.is_string()) {
    const auto name = text(schema, "schema");
    element named;
    if (!schemas || (*schemas)[name].get(named))
      throw std::runtime_error("no schema named " + name);
    element payload;
    if (e["payload"].get(payload)) throw std::runtime_error("a record without payload");
    return fmt::format(R"({{"schema":{},"payload":{}}})", simdjson::minify(named),
                       simdjson::minify(payload));
  }
  return simdjson::minify(e);
}

}  // namespace

DifferentialCase DifferentialCase::load(const fs::path& file) {
  simdjson::dom::parser parser;
  DifferentialCase out;
  out.name = file.stem().string();
  try {
    element doc = parser.load(file.string());
    if (element about; !doc["about"].get(about)) out.about = text(about, "about");
    simdjson::dom::object config;
    if (!doc["config"].get(config))
      for (auto [key, value] : config) out.config[std::string(key)] = text(value, std::string(key));
    if (!doc["ksink_config"].get(config))
      for (auto [key, value] : config)
        out.ksink_config[std::string(key)] = text(value, std::string(key));
    out.topics.push_back("");
    if (simdjson::dom::array topics; !doc["topics"].get(topics))
      for (element t : topics)
        if (auto suffix = text(t, "a topic"); !suffix.empty()) out.topics.push_back(suffix);
    if (simdjson::dom::array setup; !doc["setup"].get(setup))
      for (element statement : setup) out.setup.push_back(text(statement, "a setup statement"));
    std::optional<simdjson::dom::object> schemas;
    if (simdjson::dom::object o; !doc["schemas"].get(o)) schemas = o;
    simdjson::dom::array batches;
    if (doc["batches"].get(batches)) throw std::runtime_error("no batches");
    for (simdjson::dom::array batch : batches) {
      auto& records = out.batches.emplace_back();
      for (element r : batch) {
        DifferentialRecord record;
        if (element t; !r["topic"].get(t)) record.topic = text(t, "topic");
        if (std::find(out.topics.begin(), out.topics.end(), record.topic) == out.topics.end())
          throw std::runtime_error("a record for topic '" + record.topic + "', not in topics");
        record.key = bytes(r, "key", schemas);
        record.value = bytes(r, "value", schemas);
        if (simdjson::dom::object headers; !r["headers"].get(headers))
          for (auto [k, v] : headers) record.headers.emplace_back(k, text(v, "a header"));
        if (int64_t ts; !r["timestamp"].get(ts)) record.timestamp = ts;
        records.push_back(std::move(record));
      }
    }
    if (simdjson::dom::array tails; !doc["connect_uncommitted"].get(tails))
      for (element t : tails) {
        int64_t n = 0;
        if (t.get(n)) throw std::runtime_error("connect_uncommitted holds a non-integer");
        out.connect_uncommitted.push_back(n);
      }
    if (simdjson::dom::array differences; !doc["differences"].get(differences))
      for (element d : differences) out.differences.push_back(text(d, "a difference"));
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", file.string(), e.what()));
  }
  return out;
}

std::vector<DifferentialCase> DifferentialCase::loadAll(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<DifferentialCase> out;
  for (const auto& f : files) out.push_back(load(f));
  return out;
}

}  // namespace ksink::it
