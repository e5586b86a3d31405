// TaskUnderTest: what a connector author tells the test kit about any task, sink or source — the
// connector's name, how to make its task, its configuration keys and the properties it needs for
// one run — and the builder calls that set them. SinkUnderTest and SourceUnderTest
// (sink_under_test.h, source_under_test.h) derive from it and add what their kind needs; it is
// not used on its own. `Self` is the derived class (each setter returns it, so a builder chain
// goes on with the kind's own calls), `Factory` its kind's task factory.
//
// A value type: copy it freely. Its functions are called from the test's thread.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "ksink/config_def.h"
#include "ksink/testkit/scenario_run.h"
#include "ksink/testkit/worker_runner.h"

namespace ksink::testkit {

template <typename Self, typename Factory>
class TaskUnderTest {
 public:
  using ConfigFn = std::function<Properties(const ScenarioRun&)>;

  // The task's configuration keys, which the Worker validates the run's properties against.
  Self& configDef(const ConfigDef& def) {
    definitions_ = def;
    return self();
  }
  // The connector properties the task needs for a run; the kit adds its own (what, the derived
  // class says), and yours win.
  Self& config(ConfigFn config) {
    config_ = std::move(config);
    return self();
  }

  const std::string& name() const { return name_; }
  const Factory& factory() const { return factory_; }
  const ConfigDef& definitions() const { return definitions_; }
  Properties properties(const ScenarioRun& run) const {
    return config_ ? config_(run) : Properties{};
  }

 protected:
  // `name`: letters, digits and '_' (it names topics and tables); `kind` ("SinkUnderTest", …)
  // names the builder in the std::invalid_argument thrown otherwise, or without a factory.
  TaskUnderTest(std::string_view kind, std::string name, Factory factory)
      : name_(std::move(name)), factory_(std::move(factory)) {
    requirePlainName(std::string(kind), name_);
    if (!factory_)
      throw std::invalid_argument(std::string(kind) + " " + name_ + ": no task factory");
  }

 private:
  Self& self() { return static_cast<Self&>(*this); }

  std::string name_;
  Factory factory_;
  ConfigDef definitions_;
  ConfigFn config_;
};

}  // namespace ksink::testkit
