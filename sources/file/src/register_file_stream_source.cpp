#include "ksink/file/register_file_stream_source.h"

#include "file_stream_source_task.h"
#include "ksink/source_connector.h"

namespace ksink {

void registerFileStreamSource(ConnectorRegistry& registry) {
  addSourceConnector(registry,
                     {"FileStreamSource", [] { return std::make_unique<FileStreamSourceTask>(); },
                      FileStreamSourceTask::configDef(),
                      "Kafka Connect's file source: a file's lines, as they are appended"},
                     {"org.apache.kafka.connect.file.FileStreamSourceConnector"});
}

}  // namespace ksink
