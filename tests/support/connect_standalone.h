// A real Kafka Connect 4.1.1 worker for the interoperability tests, through
// integration/debezium/start.sh and stop.sh, with Connect's file connectors (FileStreamSource,
// FileStreamSink: fetch_connect_file.sh) on its plugin path beside the Debezium source and
// Apicurio Registry's AvroConverter (fetch.sh).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ksink::it {

// The plugin.path directory holding connect-file, fetched once per test process.
const std::string& connectFilePlugins();

// Runs integration/debezium/<script> ("start.sh": a worker with the connector `args` describe,
// until it is RUNNING; "stop.sh") on `workdir`, with connect-file on the plugin path and the
// `env` assignments ("KEY=value"). Throws with the script's output when it fails.
void connectScript(const std::string& script, const std::filesystem::path& workdir,
                   const std::vector<std::string>& args, const std::vector<std::string>& env = {});

}  // namespace ksink::it
