// A plugin whose sink never comes up: its factory blocks (a constructor waiting on a server that
// never answers). The CLI tests use it to check that signals still get the process out.
#include <chrono>
#include <thread>

#include "ksink/plugin.h"
#include "ksink/sink_task.h"

namespace {

class NeverReadySink : public ksink::SinkTask {
 public:
  NeverReadySink() {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
  void start(const ksink::Config&) override {}
  void put(std::span<const ksink::SinkRecord>) override {}
  void stop() override {}
};

// Starts, then never returns from its first put(): no graceful stop can finish.
class StuckInPutSink : public ksink::SinkTask {
 public:
  void start(const ksink::Config&) override {}
  void put(std::span<const ksink::SinkRecord>) override {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
  void stop() override {}
};

}  // namespace

KSINK_PLUGIN(registry) {
  registry.add({"stuck-in-put", [] { return std::make_unique<StuckInPutSink>(); },
                ksink::ConfigDef(), "A sink whose put() never returns (tests only)"});
  registry.add({"never-ready", [] { return std::make_unique<NeverReadySink>(); },
                ksink::ConfigDef(), "A sink whose constructor never returns (tests only)"});
}
