// TimestampRouter: sets the topic (so the destination table) from the topic and the record
// timestamp, like Connect's TimestampRouter (orders-20240229 for ${topic}-${timestamp}).
#include <fmt/format.h>

#include "builtin_transforms.h"
#include "date_format.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

void replaceAll(std::string& text, std::string_view what, std::string_view with) {
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
    text.replace(at, what.size(), with);
}

class TimestampRouter : public Transformation {
 public:
  const ConfigDef& configDef() const override {
    static const ConfigDef def =
        ConfigDef()
            .define(
                "topic.format", ConfigDef::Type::kString, "${topic}-${timestamp}",
                ConfigDef::Importance::kHigh,
                "Format string which can contain ${topic} and ${timestamp} as placeholders for the "
                "topic and timestamp, respectively.")
            .define(
                "timestamp.format", ConfigDef::Type::kString, "yyyyMMdd",
                ConfigDef::Importance::kHigh,
                "Format string for the timestamp, a java.text.SimpleDateFormat pattern (UTC) of "
                "the letters y M d H m s S and quoted text.");
    return def;
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
    std::string topic = topic_format_;
    replaceAll(topic, "${topic}", record.topic);
    replaceAll(topic, "${timestamp}", format_->format(*record.timestamp));
    record.topic = std::move(topic);
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
