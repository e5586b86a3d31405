// The same sink as a plugin for the stock `ksink` binary: build this file into a shared library,
// put it in a directory listed in the worker's plugin.path, and `connector.class=jsonl-file`
// works with `ksink run`.
#include "jsonl_file_sink.h"
#include "ksink/plugin.h"

KSINK_PLUGIN(registry) {
  registry.add({"jsonl-file", [] { return std::make_unique<example::JsonlFileSink>(); },
                example::JsonlFileSink::configDef(), "Appends records as JSON lines to a file"});
}
