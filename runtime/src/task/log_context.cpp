#include "log_context.h"

#include <fmt/format.h>

#include <utility>

namespace ksink {
namespace {

thread_local LogContext current_context;

}  // namespace

std::string LogContext::tag() const {
  if (connector.empty()) return {};
  return task ? fmt::format("[{}|task-{}] ", connector, *task)
              : fmt::format("[{}|worker] ", connector);
}

const LogContext& LogContext::current() {
  return current_context;
}

LogContext::Scope::Scope(LogContext context)
    : previous_(std::exchange(current_context, std::move(context))) {}

LogContext::Scope::~Scope() {
  current_context = std::move(previous_);
}

}  // namespace ksink
