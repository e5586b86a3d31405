// DropHeaders: removes every header of the configured names, like Connect's DropHeaders.
#include <set>

#include "builtin_transforms.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

class DropHeaders : public BuiltinTransform<DropHeaders> {
 public:
  static ConfigDef definition() {
    return ConfigDef().define("headers", ConfigDef::Type::kList, std::nullopt,
                              ConfigDef::Importance::kHigh,
                              "The name of the headers to be removed.", nonEmptyList());
  }

  void configure(const Config& config) override {
    const auto names = config.getList("headers");
    names_ = std::set<std::string, std::less<>>(names.begin(), names.end());
  }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    std::erase_if(record.headers, [&](const ConnectHeader& h) { return names_.contains(h.key); });
    return record;
  }

 private:
  std::set<std::string, std::less<>> names_;
};

}  // namespace

void registerDropHeaders(TransformationRegistry& registry) {
  registerTransform<DropHeaders>(registry, "DropHeaders");
}

}  // namespace ksink::detail
