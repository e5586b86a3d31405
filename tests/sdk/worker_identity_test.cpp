// How a process names itself to its cluster: the listener as bound, the machine's host name for
// a wildcard address, Connect's rest.advertised.* over both, and a process without a listener.
#include "worker_identity.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace ksink {
namespace {

std::string host() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

TEST(WorkerIdentityTest, TheListenerAsBoundOrAdvertised) {
  EXPECT_EQ(workerIdentity({}, "127.0.0.1:8083"), "127.0.0.1:8083");
  // A wildcard names no one: every process of a cluster would be "0.0.0.0:8083".
  EXPECT_EQ(workerIdentity({}, "0.0.0.0:8083"), host() + ":8083");
  EXPECT_EQ(workerIdentity({}, "[::]:8083"), host() + ":8083");
  EXPECT_EQ(workerIdentity({{"rest.advertised.host.name", "worker-2.example"}}, "0.0.0.0:8083"),
            "worker-2.example:8083");
  EXPECT_EQ(workerIdentity({{"rest.advertised.host.name", "w2"}, {"rest.advertised.port", "443"}},
                           "127.0.0.1:8083"),
            "w2:443");
  EXPECT_EQ(workerIdentity({}, ""), host() + "#" + std::to_string(getpid()));
}

}  // namespace
}  // namespace ksink
