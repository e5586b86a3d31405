// HasHeaderKey predicate: true for records with at least one header of the configured name, like
// Connect's predicates.HasHeaderKey.
#include "builtin_transforms.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

class HasHeaderKey : public BuiltinPredicate<HasHeaderKey> {
 public:
  static ConfigDef definition() {
    return ConfigDef().define("name", ConfigDef::Type::kString, std::nullopt,
                              ConfigDef::Importance::kMedium, "The header name.", nonEmptyString());
  }
  void configure(const Config& config) override { name_ = config.getString("name"); }
  bool test(const ConnectRecord& record) const override { return record.header(name_) != nullptr; }

 private:
  std::string name_;
};

}  // namespace

void registerHasHeaderKey(TransformationRegistry& registry) {
  registerPredicate<HasHeaderKey>(registry, "HasHeaderKey");
}

}  // namespace ksink::detail
