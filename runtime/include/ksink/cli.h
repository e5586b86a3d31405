// runCli: the `ksink` command line as a function, so a program that links the SDK and registers
// its own sinks (ConnectorRegistry::global().add(...)) gets the same `run`, `validate`, `version`
// and
// `--help` as the stock binary:
//
//   int main(int argc, char** argv) {
//     ksink::ConnectorRegistry::global().add({"my-sink", [] { return std::make_unique<MySink>();
//     }}); return ksink::runCli(argc, argv);
//   }
//
// Call it once, from the main thread. It installs SIGTERM/SIGINT handling for graceful stop.
#pragma once

namespace ksink {

int runCli(int argc, char** argv);

}  // namespace ksink
