// ReplaceField$Key / ReplaceField$Value: keeps, drops and renames the fields of a struct or map,
// like Connect's ReplaceField.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "builtin_transforms.h"
#include "ksink/detail/config_parse.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

constexpr std::string_view kPurpose = "field replacement";

std::optional<std::string> renameProblem(const std::vector<std::string>& mappings) {
  for (const auto& mapping : mappings)
    if (javaSplit(mapping, ':').size() != 2)
      return fmt::format("Invalid rename mapping: {} (expected old:new)", mapping);
  return std::nullopt;
}

class ReplaceField : public FieldTransform<ReplaceField> {
 public:
  using FieldTransform::FieldTransform;

  static ConfigDef definition() {
    return ConfigDef()
        .define("exclude", ConfigDef::Type::kList, "", ConfigDef::Importance::kMedium,
                "Fields to exclude. This takes precedence over the fields to include.")
        .define("include", ConfigDef::Type::kList, "", ConfigDef::Importance::kMedium,
                "Fields to include. If specified, only these fields will be used.")
        // Connect 4.0 dropped the pre-KIP-629 names; they are kept so 3.x configurations still
        // start, with the same meaning.
        .define("blacklist", ConfigDef::Type::kList, "", ConfigDef::Importance::kLow,
                "Deprecated. Use exclude instead.")
        .define("whitelist", ConfigDef::Type::kList, "", ConfigDef::Importance::kLow,
                "Deprecated. Use include instead.")
        .define("renames", ConfigDef::Type::kList, "", ConfigDef::Importance::kMedium,
                "Field rename mappings: a list of colon-delimited pairs, e.g. foo:bar,abc:xyz.",
                [](std::string_view value) { return renameProblem(parseList(value)); })
        .include(replaceNullWithDefaultDef());
  }

  void configureFields(const Config& config) override {
    std::vector<ConfigProblem> problems;
    const auto list = [&](const char* key, const char* deprecated) {
      const bool has_key = config.values().contains(key);
      const bool has_deprecated = config.values().contains(deprecated);
      if (has_key && has_deprecated && config.getList(key) != config.getList(deprecated))
        problems.push_back({deprecated, fmt::format("is a deprecated name of {}, which is also set "
                                                    "to another value; set only {}",
                                                    key, key)});
      const auto items = config.getList(has_key || !has_deprecated ? key : deprecated);
      return std::set<std::string>(items.begin(), items.end());
    };
    exclude_ = list("exclude", "blacklist");
    include_ = list("include", "whitelist");
    if (!problems.empty()) throw ConfigException(std::move(problems));
    renames_.clear();
    for (const auto& mapping : config.getList("renames")) {
      auto parts = javaSplit(mapping, ':');
      renames_.insert_or_assign(parts[0], parts[1]);
    }
  }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    auto& operand = detail::operand(record, key_);
    if (operand.value.isNull()) return record;
    if (!operand.schema) {
      const auto& in = requireMap(operand.value, kPurpose);
      Value::Object out;
      for (const auto& [name, value] : in)
        if (keep(name)) putEntry(out, renamed(name), value);
      operand.value = Value::object(std::move(out));
      return record;
    }
    const auto& schema = requireStruct(operand, kPurpose);
    auto updated = cache_.get(operand.schema, [&](const Schema& s) {
      std::vector<Schema::Field> fields;
      for (const auto& f : s.fields) {
        if (!keep(f.name)) continue;
        const auto& name = renamed(f.name);
        if (std::any_of(fields.begin(), fields.end(),
                        [&](const Schema::Field& g) { return g.name == name; }))
          throw ConversionError(fmt::format(
              "Cannot rename field '{}' to '{}' for [{}]: the struct already has a field '{}'",
              f.name, name, kPurpose, name));
        fields.push_back({name, f.schema});
      }
      return withFields(s, std::move(fields));
    });
    const auto& in = operand.value.asObject();
    Value::Object out;
    out.reserve(updated->fields.size());
    for (size_t i = 0; i < schema.fields.size(); ++i) {
      const auto& f = schema.fields[i];
      if (keep(f.name)) out.emplace_back(renamed(f.name), fieldValue(in, i, f, replace_null_));
    }
    operand = {std::move(updated), Value::object(std::move(out))};
    return record;
  }

 private:
  bool keep(const std::string& name) const {
    return !exclude_.contains(name) && (include_.empty() || include_.contains(name));
  }
  const std::string& renamed(const std::string& name) const {
    auto it = renames_.find(name);
    return it == renames_.end() ? name : it->second;
  }

  std::set<std::string> exclude_, include_;
  std::map<std::string, std::string> renames_;
};

}  // namespace

void registerReplaceField(TransformationRegistry& registry) {
  registerKeyValueTransform<ReplaceField>(registry, "ReplaceField");
}

}  // namespace ksink::detail
