// orbench-ice-client: the ice-cpp target's client worker (PROTOCOL.md, "Client worker"). Its arguments are Ice
// properties (--Ice.Name=value), for the communicator; nothing else.
#include <csignal>
#include <iostream>

#include <Ice/Ice.h>

#include "ice_client.hpp"
#include "protocol_out.hpp"

int main(int argc, char** argv) {
  orbench::reserve_stdout_for_protocol();
  std::signal(SIGPIPE, SIG_IGN);  // a dead server must be an exception, not the client's death
  try {
    Ice::CommunicatorHolder holder(argc, argv);  // takes the --Ice.* arguments out of argv
    if (argc > 1) {
      std::cerr << "unknown argument: " << argv[1] << "\n";
      return 2;
    }
    orbench::IceBenchClient client(holder.communicator());
    orbench::run_client_loop(client, std::cin);
    return 0;
  } catch (const Ice::Exception& error) {
    std::cerr << "client failed: " << error.what() << "\n";
    return 1;
  }
}
