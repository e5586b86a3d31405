// PgWatchdog: a guarded call that outlives its bound has its socket shut down, nested guards
// included.
#include "ksink/pg/pg_watchdog.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

namespace ksink::postgres {
namespace {

using namespace std::chrono_literals;

class PgWatchdogTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0); }
  void TearDown() override {
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  // Whether the watched end was shut down (a read returns 0 at once instead of blocking).
  bool shutDown() {
    char c;
    return ::recv(fds_[0], &c, 1, MSG_DONTWAIT) == 0;
  }
  int fds_[2] = {-1, -1};
};

TEST_F(PgWatchdogTest, ACallPastItsBoundHasItsSocketShutDown) {
  PgWatchdog watchdog(100ms);
  {
    PgWatchdog::Guard guard(watchdog, fds_[0]);
    std::this_thread::sleep_for(400ms);
  }
  EXPECT_TRUE(watchdog.fired());
  EXPECT_TRUE(shutDown());
}

TEST_F(PgWatchdogTest, ACallWithinItsBoundIsLeftAlone) {
  PgWatchdog watchdog(300ms);
  {
    PgWatchdog::Guard guard(watchdog, fds_[0]);
    std::this_thread::sleep_for(50ms);
  }
  std::this_thread::sleep_for(400ms);
  EXPECT_FALSE(watchdog.fired());
  EXPECT_FALSE(shutDown());
}

// A nested guard used to disarm the outer one when it ended: the outer call then had no bound.
TEST_F(PgWatchdogTest, AnInnerGuardGivesTheOuterCallItsBoundBack) {
  PgWatchdog watchdog(200ms);
  {
    PgWatchdog::Guard outer(watchdog, fds_[0]);
    { PgWatchdog::Guard inner(watchdog, fds_[0]); }
    std::this_thread::sleep_for(600ms);  // the outer call, past its bound
  }
  EXPECT_TRUE(watchdog.fired());
  EXPECT_TRUE(shutDown());
}

}  // namespace
}  // namespace ksink::postgres
