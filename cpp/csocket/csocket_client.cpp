// orbench-csocket-client: the C socket baseline's client worker (JSON-lines commands on stdin).
#include <csignal>
#include <iostream>

#include "client_worker.hpp"
#include "protocol_out.hpp"
#include "socket_client.hpp"
#include "socket_io.hpp"

int main() {
  orbench::reserve_stdout_for_protocol();
  std::signal(SIGPIPE, SIG_IGN);  // belt and braces: send() already uses MSG_NOSIGNAL
  orbench::skip_cancellation_bookkeeping();  // a pool run's threads make the process multi-threaded
  orbench::SocketClient client;
  orbench::run_client_loop(client, std::cin);
  return 0;
}
