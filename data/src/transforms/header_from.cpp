// HeaderFrom$Key / HeaderFrom$Value: copies or moves fields of the key or value into headers,
// like Connect's HeaderFrom.
#include <fmt/format.h>

#include <algorithm>

#include "builtin_transforms.h"
#include "ksink/detail/config_parse.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

class HeaderFrom : public FieldTransform<HeaderFrom> {
 public:
  using FieldTransform::FieldTransform;

  static ConfigDef definition() {
    return ConfigDef()
        .define("fields", ConfigDef::Type::kList, std::nullopt, ConfigDef::Importance::kHigh,
                "Field names in the record whose values are to be copied or moved to headers.",
                nonEmptyList())
        .define("headers", ConfigDef::Type::kList, std::nullopt, ConfigDef::Importance::kHigh,
                "Header names, in the same order as the field names listed in the fields "
                "configuration property.",
                nonEmptyList())
        .define("operation", ConfigDef::Type::kString, std::nullopt, ConfigDef::Importance::kHigh,
                "Either move if the fields are to be moved to the headers (removed from the "
                "key/value), or copy if the fields are to be copied to the headers (retained in "
                "the key/value).",
                ConfigDef::oneOf({"move", "copy"}))
        .include(replaceNullWithDefaultDef());
  }

  void configureFields(const Config& config) override {
    // Positions pair fields with headers, so duplicates are kept (getList would drop them).
    fields_ = splitList(config.getString("fields"));
    headers_ = splitList(config.getString("headers"));
    if (fields_.size() != headers_.size())
      throw configError("headers",
                        "'fields' config must have the same number of elements as 'headers' "
                        "config.");
    move_ = trim(config.getString("operation")) == "move";
  }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    auto& operand = detail::operand(record, key_);
    const auto purpose = fmt::format("header {}", move_ ? "move" : "copy");
    if (!operand.schema) {
      const auto& in = requireMap(operand.value, purpose);
      for (size_t i = 0; i < fields_.size(); ++i) {
        const Value* v = operand.value.find(fields_[i]);
        record.headers.push_back({headers_[i], {nullptr, v ? *v : Value()}});
      }
      if (move_) {
        Value::Object out;
        for (const auto& [name, value] : in)
          if (!moved(name)) out.emplace_back(name, value);
        operand.value = Value::object(std::move(out));
      }
      return record;
    }
    const auto& schema = requireStruct(operand, purpose);
    const auto& in = operand.value.asObject();
    for (size_t i = 0; i < fields_.size(); ++i) {
      size_t index = 0;
      while (index < schema.fields.size() && schema.fields[index].name != fields_[i]) ++index;
      if (index == schema.fields.size())
        throw ConversionError(
            fmt::format("Field does not exist: {} (for [{}])", fields_[i], purpose));
      const auto& f = schema.fields[index];
      record.headers.push_back({headers_[i], {f.schema, fieldValue(in, index, f, replace_null_)}});
    }
    if (move_) {
      auto updated = cache_.get(operand.schema, [&](const Schema& s) {
        std::vector<Schema::Field> fields;
        for (const auto& f : s.fields)
          if (!moved(f.name)) fields.push_back(f);
        return withFields(s, std::move(fields));
      });
      Value::Object out;
      for (size_t i = 0; i < schema.fields.size(); ++i)
        if (!moved(schema.fields[i].name))
          out.emplace_back(schema.fields[i].name,
                           fieldValue(in, i, schema.fields[i], replace_null_));
      operand = {std::move(updated), Value::object(std::move(out))};
    }
    return record;
  }

 private:
  bool moved(const std::string& name) const {
    return std::find(fields_.begin(), fields_.end(), name) != fields_.end();
  }

  std::vector<std::string> fields_, headers_;
  bool move_ = false;
};

}  // namespace

void registerHeaderFrom(TransformationRegistry& registry) {
  registerKeyValueTransform<HeaderFrom>(registry, "HeaderFrom");
}

}  // namespace ksink::detail
