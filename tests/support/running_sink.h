// RunningSink: a PostgreSQL sink in a Worker on its own thread, for the tests that drive the sink
// in-process against the real broker and server, until the test stops it.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "ksink/config.h"
#include "ksink/postgres/postgres_sink_task.h"
#include "ksink/worker.h"

namespace ksink::it {

class RunningSink {
 public:
  using Props = std::map<std::string, std::string>;

  explicit RunningSink(Props props)
      : worker_(makeConfig(std::move(props)),
                [] { return std::make_unique<postgres::PostgresSinkTask>(); }),
        thread_([this] {
          try {
            worker_.run();
          } catch (const std::exception& e) {
            error_ = e.what();
          }
          done_ = true;
        }) {}
  ~RunningSink() { stop(); }
  RunningSink(const RunningSink&) = delete;
  RunningSink& operator=(const RunningSink&) = delete;

  void stop() {
    worker_.stop();
    if (thread_.joinable()) thread_.join();
  }
  bool done() const { return done_; }
  // The task's fatal error, once run() has returned.
  std::string error() {
    stop();
    return error_;
  }

  static Config makeConfig(Props props) {
    ConfigDef def = Worker::configDef();
    def.include(postgres::PostgresSinkTask::configDef());
    return Config(std::move(props), std::move(def));
  }

 private:
  Worker worker_;
  std::string error_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace ksink::it
