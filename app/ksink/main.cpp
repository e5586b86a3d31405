// The stock `ksink` binary: the built-in sinks plus the command line.
#include "ksink/cli.h"
#include "ksink/postgres/register_postgres_sink.h"
#include "ksink/sink_registry.h"
#include "ksink/sqlite/register_sqlite_sink.h"

int main(int argc, char** argv) {
  ksink::registerSqliteSink(ksink::SinkRegistry::global());
  ksink::registerPostgresSink(ksink::SinkRegistry::global());
  return ksink::runCli(argc, argv);
}
