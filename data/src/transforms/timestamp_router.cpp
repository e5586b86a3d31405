// TimestampRouter: sets the topic (so the destination table) from the topic and the record
// timestamp, like Connect's TimestampRouter (orders-20240229 for ${topic}-${timestamp}).
#include <fmt/format.h>

#include "builtin_transforms.h"
#include "date_format.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

class TimestampRouter : public BuiltinTransform<TimestampRouter> {
 public:
  static ConfigDef definition() {
    return ConfigDef()
        .define("topic.format", ConfigDef::Type::kString, "${topic}-${timestamp}",
                ConfigDef::Importance::kHigh,
                "Format string which can contain ${topic} and ${timestamp} as placeholders for the "
                "topic and timestamp, respectively.")
        .define("timestamp.format", ConfigDef::Type::kString, "yyyyMMdd",
                ConfigDef::Importance::kHigh,
                "Format string for the timestamp, a java.text.SimpleDateFormat pattern (UTC) of "
                "the letters y M d H m s S and quoted text.");
  }

  void configure(const Config& config) override {
    topic_format_ = config.getString("topic.format");
    std::string error;
    format_ = DateFormat::compile(config.getString("timestamp.format"), &error);
    if (!format_) throw configError("timestamp.format", error);
  }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    if (!record.timestamp)
      throw ConversionError(fmt::format("Timestamp missing on record of topic {}", record.topic));
    // ${topic} first, then ${timestamp} in the result, as Connect replaces them.
    auto topic = replaceAll(topic_format_, "${topic}", record.topic);
    record.topic = replaceAll(std::move(topic), "${timestamp}", format_->format(*record.timestamp));
    return record;
  }

 private:
  std::string topic_format_;
  std::optional<DateFormat> format_;
};

}  // namespace

void registerTimestampRouter(TransformationRegistry& registry) {
  registerTransform<TimestampRouter>(registry, "TimestampRouter");
}

}  // namespace ksink::detail
