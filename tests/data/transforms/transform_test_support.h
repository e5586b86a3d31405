// What the transform tests share: a chain built the way a connector configures it, records and
// schemas to feed it.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ksink/config.h"
#include "ksink/config_exception.h"
#include "ksink/connect_record.h"
#include "ksink/conversion_error.h"
#include "ksink/schema.h"
#include "ksink/transformation_chain.h"
#include "ksink/value.h"

namespace ksink::testing {

// A chain of one transform aliased `x` of `type` with `keys` (given without their
// `transforms.x.` prefix), as `transforms=x` in a connector configuration.
inline TransformationChain chainOf(const std::string& type,
                                   const std::map<std::string, std::string>& keys = {}) {
  std::map<std::string, std::string> values{{"transforms", "x"}, {"transforms.x.type", type}};
  for (const auto& [k, v] : keys) values.emplace("transforms.x." + k, v);
  return TransformationChain(Config(values));
}

// The problems a chain of `type` with `keys` is refused for, as "full.key: reason" lines; empty
// when it builds.
inline std::vector<std::string> problemsOf(const std::string& type,
                                           const std::map<std::string, std::string>& keys = {}) {
  std::map<std::string, std::string> values{{"transforms", "x"}, {"transforms.x.type", type}};
  for (const auto& [k, v] : keys) values.emplace("transforms.x." + k, v);
  std::vector<std::string> out;
  for (const auto& p : TransformationChain::problems(values))
    out.push_back(p.key + ": " + p.reason);
  return out;
}

// The full keys of the problems a chain is refused for.
inline std::vector<std::string> problemKeys(const std::string& type,
                                            const std::map<std::string, std::string>& keys = {}) {
  std::map<std::string, std::string> values{{"transforms", "x"}, {"transforms.x.type", type}};
  for (const auto& [k, v] : keys) values.emplace("transforms.x." + k, v);
  std::vector<std::string> out;
  for (const auto& p : TransformationChain::problems(values)) out.push_back(p.key);
  return out;
}

inline std::shared_ptr<const Schema> prim(Schema::Type type, bool optional = false) {
  return Schema::of(type, optional);
}

inline std::shared_ptr<const Schema> structOf(std::vector<Schema::Field> fields,
                                              std::string name = "", bool optional = false) {
  auto s = std::make_shared<Schema>();
  s->type = Schema::Type::kStruct;
  s->name = std::move(name);
  s->optional = optional;
  s->fields = std::move(fields);
  return s;
}

inline std::shared_ptr<const Schema> logical(std::string_view name, Schema::Type type,
                                             bool optional = false) {
  auto s = std::make_shared<Schema>();
  s->type = type;
  s->name = std::string(name);
  s->optional = optional;
  return s;
}

inline std::shared_ptr<const Schema> withDefault(Schema::Type type, Value def) {
  auto s = std::make_shared<Schema>();
  s->type = type;
  s->optional = true;
  s->default_value = std::make_shared<const Value>(std::move(def));
  return s;
}

inline Value obj(Value::Object entries) {
  return Value::object(std::move(entries));
}
inline Value str(std::string s) {
  return Value::string(std::move(s));
}
inline Value num(int64_t i) {
  return Value::integer(i);
}

// A record of topic `orders`, partition 3, timestamp 1700000000123 read at offset 42.
struct Records {
  SinkRecord original{"orders", 3, 42, 1700000000123, std::nullopt, std::nullopt};

  ConnectRecord make(SchemaAndValue value, SchemaAndValue key = {}) const {
    auto r = ConnectRecord::from(original, std::move(key), std::move(value));
    return r;
  }
};

using Strings = std::vector<std::string>;

// `lines` is one line containing `needle`.
inline ::testing::AssertionResult hasOnly(const Strings& lines, std::string_view needle) {
  if (lines.size() == 1 && lines[0].find(needle) != std::string::npos)
    return ::testing::AssertionSuccess();
  std::string all;
  for (const auto& l : lines) all += "\n  " + l;
  return ::testing::AssertionFailure()
         << "expected one line containing '" << needle << "', got:" << all;
}

// `text` contains `needle`.
inline ::testing::AssertionResult contains(std::string_view text, std::string_view needle) {
  if (text.find(needle) != std::string_view::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << needle << "'";
}

// Names of a struct schema's fields, in order.
inline std::vector<std::string> fieldNames(const Schema& schema) {
  std::vector<std::string> out;
  for (const auto& f : schema.fields) out.push_back(f.name);
  return out;
}

// Runs `chain` on `record`, expecting the record to come out (not dropped).
inline ConnectRecord applied(TransformationChain& chain, ConnectRecord record) {
  auto out = chain.apply(std::move(record));
  if (!out) throw std::runtime_error("the chain dropped the record");
  return std::move(*out);
}

}  // namespace ksink::testing
