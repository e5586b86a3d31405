#include "ksink/file/register_file_stream_source.h"

#include "file_stream_source_task.h"
#include "ksink/source_connector.h"

namespace ksink {

void registerFileStreamSource(ConnectorRegistry& registry) {
  addSourceConnector(registry,
                     {"FileStreamSource",
                      [] { return std::make_unique<FileStreamSourceTask>(); },
                      FileStreamSourceTask::configDef(),
                      "Kafka Connect's file source: a file's lines, as they are appended",
                      // A file's position is its offset (as Connect's connector says); standard
                      // input has none.
                      {[](const Config& config) {
                         return config.get("file").value_or("").empty()
                                    ? ExactlyOnceSupport::kUnsupported
                                    : ExactlyOnceSupport::kSupported;
                       },
                       nullptr}},
                     {"org.apache.kafka.connect.file.FileStreamSourceConnector"});
}

}  // namespace ksink
