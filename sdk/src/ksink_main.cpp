// The stock `ksink` binary: the built-in sinks plus the command line.
#include "ksink/cli.h"

int main(int argc, char** argv) { return ksink::runCli(argc, argv); }
