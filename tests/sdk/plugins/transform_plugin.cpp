// A plugin that adds a transform, not a sink: a user's SMT registered from KSINK_PLUGIN, usable in
// any table sink's transforms= chain. The CLI tests check the chain finds it by its names.
#include "ksink/plugin.h"
#include "ksink/transformation_registry.h"

namespace {

// Appends `suffix` to the topic (so to the table name).
class AppendToTopic final : public ksink::Transformation {
 public:
  const ksink::ConfigDef& configDef() const override {
    static const ksink::ConfigDef def = [] {
      ksink::ConfigDef d;
      d.define("suffix", ksink::ConfigDef::Type::kString, std::nullopt,
               ksink::ConfigDef::Importance::kHigh, "appended to the topic");
      return d;
    }();
    return def;
  }
  void configure(const ksink::Config& config) override { suffix_ = config.getString("suffix"); }
  std::optional<ksink::ConnectRecord> apply(ksink::ConnectRecord record) override {
    record.topic += suffix_;
    return record;
  }

 private:
  std::string suffix_;
};

}  // namespace

KSINK_PLUGIN(registry) {
  (void)registry;  // no sink: the plugin only adds a transform
  ksink::TransformationRegistry::global().addTransformation(
      {"com.example.AppendToTopic", "AppendToTopic"},
      [] { return std::make_unique<AppendToTopic>(); });
}
