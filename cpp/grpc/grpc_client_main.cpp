// orbench-grpc-client: the grpc-cpp target's client worker (PROTOCOL.md, "Client worker"). No arguments.
#include <csignal>
#include <iostream>

#include "grpc_client.hpp"
#include "protocol_out.hpp"

int main(int argc, char** argv) {
  orbench::reserve_stdout_for_protocol();
  std::signal(SIGPIPE, SIG_IGN);  // a dead server must be an error status, not the client's death
  if (argc > 1) {
    std::cerr << "unknown argument: " << argv[1] << "\n";
    return 2;
  }
  orbench::GrpcBenchClient client;
  orbench::run_client_loop(client, std::cin);
  client.disconnect();
  return 0;
}
