// The stock `ksink` binary: the built-in sinks and sources plus the command line.
#include "ksink/cli.h"
#include "ksink/connector_registry.h"
#include "ksink/file/register_file_stream_source.h"
#include "ksink/jdbc/register_jdbc_sources.h"
#include "ksink/postgres/register_postgres_sink.h"
#include "ksink/sqlite/register_sqlite_sink.h"

int main(int argc, char** argv) {
  ksink::registerSqliteSink(ksink::ConnectorRegistry::global());
  ksink::registerPostgresSink(ksink::ConnectorRegistry::global());
  ksink::registerFileStreamSource(ksink::ConnectorRegistry::global());
  ksink::registerJdbcSources(ksink::ConnectorRegistry::global());
  return ksink::runCli(argc, argv);
}
