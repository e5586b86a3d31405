// TopicNameMatches predicate: true for records whose whole topic matches a Java regular
// expression, like Connect's predicates.TopicNameMatches.
#include <fmt/format.h>

#include "builtin_transforms.h"
#include "ksink/detail/java_regex.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

class TopicNameMatches : public BuiltinPredicate<TopicNameMatches> {
 public:
  static ConfigDef definition() {
    return ConfigDef().define(
        "pattern", ConfigDef::Type::kString, std::nullopt, ConfigDef::Importance::kMedium,
        "A Java regular expression for matching against the name of a record's topic.",
        [](std::string_view value) -> std::optional<std::string> {
          if (value.empty()) return "String must be non-empty";
          return JavaRegex::validator()(value);
        });
  }
  void configure(const Config& config) override {
    std::string error;
    pattern_ = JavaRegex::compile(config.getString("pattern"), &error);
    if (!pattern_)
      throw configError("pattern", "entry must be a Java-compatible regular expression: " + error);
  }
  bool test(const ConnectRecord& record) const override { return pattern_->matches(record.topic); }

 private:
  std::optional<JavaRegex> pattern_;
};

}  // namespace

void registerTopicNameMatches(TransformationRegistry& registry) {
  registerPredicate<TopicNameMatches>(registry, "TopicNameMatches");
}

}  // namespace ksink::detail
