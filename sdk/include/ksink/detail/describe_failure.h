// A failure's message, for logs, a task's last error and the test kit's reports: what() of a
// std::exception, else "a non-standard exception".
#pragma once

#include <exception>
#include <string>

namespace ksink {

inline std::string describeFailure(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "a non-standard exception";
  }
}

}  // namespace ksink
