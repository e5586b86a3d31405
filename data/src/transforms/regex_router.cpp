// RegexRouter: renames the topic (so the destination table) when the whole topic matches a Java
// regular expression, using the replacement with $n group references, like Connect's RegexRouter.
#include <fmt/format.h>

#include "builtin_transforms.h"
#include "ksink/detail/java_regex.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

class RegexRouter : public BuiltinTransform<RegexRouter> {
 public:
  static ConfigDef definition() {
    return ConfigDef()
        .define("regex", ConfigDef::Type::kString, std::nullopt, ConfigDef::Importance::kHigh,
                "Regular expression to use for matching (Java syntax; the whole topic must match).",
                JavaRegex::validator())
        .define("replacement", ConfigDef::Type::kString, std::nullopt, ConfigDef::Importance::kHigh,
                "Replacement string: $n for group n, \\ to quote the next character.");
  }

  void configure(const Config& config) override {
    std::string error;
    regex_ = JavaRegex::compile(config.getString("regex"), &error);
    if (!regex_) throw configError("regex", error);
    replacement_ = config.getString("replacement");
    // Java finds a bad group reference only on the first matching record; here, at start.
    if (auto problem = regex_->checkReplacement(replacement_))
      throw configError("replacement", *problem);
  }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    if (regex_->matches(record.topic))
      record.topic = regex_->replaceFirst(record.topic, replacement_);
    return record;
  }

 private:
  std::optional<JavaRegex> regex_;
  std::string replacement_;
};

}  // namespace

void registerRegexRouter(TransformationRegistry& registry) {
  registerTransform<RegexRouter>(registry, "RegexRouter");
}

}  // namespace ksink::detail
