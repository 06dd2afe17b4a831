// The client worker of an ORB target (PROTOCOL.md, "Client worker"). Its command-line arguments are ORB
// options (-ORB...), passed to ORB_init after the ORB port's own.
#include <csignal>
#include <iostream>

#include "bench_client.hpp"
#include "corba_errors.hpp"
#include "orb_args.hpp"
#include "protocol_out.hpp"

int main(int argc, char** argv) {
  orbench::reserve_stdout_for_protocol();
  std::signal(SIGPIPE, SIG_IGN);  // a dead server must be an exception, not the client's death
  try {
    std::vector<std::string> orb_args{argv[0]};
    for (auto& arg : orbench::orb_port::client_orb_args()) orb_args.push_back(arg);
    for (int i = 1; i < argc; ++i) orb_args.push_back(argv[i]);
    const std::vector<std::string> initial_args = orb_args;
    orbench::OrbArgs orb_argv(orb_args);
    CORBA::ORB_var orb = CORBA::ORB_init(orb_argv.argc(), orb_argv.argv());
    if (orb_argv.argc() > 1) {  // ORB_init removes the options it understood
      std::cerr << "unknown argument: " << orb_argv.argv()[1] << "\n";
      return 2;
    }
    {
      orbench::OrbBenchClient client(orb.in(), initial_args);
      orbench::run_client_loop(client, std::cin);
      client.release();
    }
    orb->destroy();
    return 0;
  } catch (const CORBA::Exception& error) {
    std::cerr << "client failed: " << orbench::describe_corba_exception(error) << "\n";
    return 1;
  }
}
