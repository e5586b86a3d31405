// A program that links the SDK, registers its own sink and hands over to the ksink command line:
//   ksink-jsonl run worker.properties jsonl-sink.properties
#include "jsonl_file_sink.h"
#include "ksink/cli.h"
#include "ksink/connector_registry.h"

int main(int argc, char** argv) {
  ksink::ConnectorRegistry::global().add(
      {"jsonl-file", [] { return std::make_unique<example::JsonlFileSink>(); },
       example::JsonlFileSink::configDef(), "Appends records as JSON lines to a file"});
  return ksink::runCli(argc, argv);
}
