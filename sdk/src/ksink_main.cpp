// The stock `ksink` binary: the built-in sinks plus the command line.
#include "ksink/cli.h"
#include "ksink/sink_registry.h"
#include "ksink/sqlite/register_sqlite_sink.h"

int main(int argc, char** argv) {
  ksink::registerSqliteSink(ksink::SinkRegistry::global());
  return ksink::runCli(argc, argv);
}
