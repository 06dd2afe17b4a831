// The server worker of every IDL-driven middleware (PROTOCOL.md, "Server worker"), beside idl_client.hpp: one
// template holds what they share (arguments and --target, option refusal, the counters and the sync barrier,
// the ready, stats and exit lines, stopping on shutdown(), stdin EOF or a signal), so a middleware adds only its
// servant glue (each IDL operation calls BenchCore) and how it listens and stops.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "connect_options.hpp"
#include "message_counter.hpp"
#include "protocol_out.hpp"
#include "run_spec.hpp"
#include "server_support.hpp"

namespace orbench {

// The bytes a payload counts for (PROTOCOL.md, "Payload types"): its elements times the unit, a string its
// characters. Any sequence with size() and iteration: std::vector, std::string, a protobuf repeated field.
template <PayloadType T, typename Sequence>
uint64_t payload_bytes(const Sequence& payload) {
  if constexpr (T == PayloadType::strings) {
    uint64_t bytes = 0;
    for (const auto& s : payload) bytes += s.size();
    return bytes;
  } else {
    return static_cast<uint64_t>(payload.size()) * payload_unit_bytes(T);
  }
}

// What every servant does, whatever its middleware: counts each payload-carrying request, answers the sync
// barrier, the counters and their reset, and starts the stop. The glue's IDL operations call it.
class BenchCore {
 public:
  template <PayloadType T, typename Sequence>
  void count(const Sequence& payload) { counter_.count(payload_bytes<T>(payload)); }
  // The IDL's sync(expected, timeout_ms), with the integers the middleware maps them to: clamped to 0 and to
  // 2^32 - 1 ms.
  SyncOutcome sync(int64_t expected, int64_t timeout_ms);
  Counts counters() const { return counter_.snapshot(); }
  void reset_counters() { counter_.reset(); }
  // Starts the stop, once, on a thread of its own: the request asking for it (shutdown()) still gets its reply.
  // A stop asked for before the server listens happens when it does.
  void shutdown();

  const MessageCounter& counter() const { return counter_; }
  // Called by the kit once the server listens: what stops it.
  void on_shutdown(std::function<void()> stop);

 private:
  MessageCounter counter_;
  std::mutex mutex_;
  std::function<void()> stop_;
  bool requested_ = false;
  bool stopped_ = false;
};

// What a middleware's server tells the kit about itself.
struct ServerSpec {
  std::string target;   // the descriptor's name when --target is not given, e.g. "thrift-cpp"
  std::string orb;      // the product, e.g. "Apache Thrift"
  std::string version;
  // `--name VALUE` arguments of its own (e.g. "--transport"), and the prefix of arguments it passes to the
  // middleware itself (e.g. "--Ice."); --host, --port, --target and --option are the kit's.
  std::vector<std::string> values;
  std::string middleware_prefix;
  // Whether it applies the server-side connect options (--option NAME=VALUE); if not, why (printed on refusal).
  bool takes_options = false;
  std::string no_options_because;
};

// The parsed command line a server starts from.
struct ServerConfig {
  std::string host;
  int port = 0;
  std::string target;                       // --target, else ServerSpec::target
  ConnectOptions options;                   // --option NAME=VALUE (only if ServerSpec::takes_options)
  std::map<std::string, std::string> values;  // its own --name VALUE arguments, by name
  std::vector<std::string> middleware_args;   // those starting with ServerSpec::middleware_prefix
};

// Throws std::invalid_argument with a usage text.
ServerConfig parse_server_config(int argc, char** argv, const ServerSpec& spec);

// A middleware's server S (thrift/thrift_server.cpp is one):
//   static ServerSpec spec();
//   S(const ServerConfig& config, BenchCore& core);   builds the server; throws std::exception saying why not
//   void serve(const std::function<void(const std::string& endpoint)>& ready);
//       listens on config.host:config.port, calls ready(endpoint) once it does, dispatches until stop()
//   void stop();   called once, from a thread of its own
template <class S>
int server_main(int argc, char** argv) {
  reserve_stdout_for_protocol();
  block_stop_signals();  // before the middleware starts any thread
  const ServerSpec spec = S::spec();
  ServerConfig config;
  try {
    config = parse_server_config(argc, argv, spec);
  } catch (const std::invalid_argument& e) {
    print_start_error(e.what());
    return 2;
  }
  // Leaked: detached threads (the stop watchers, a sync() still waiting) may use it while main returns.
  auto* core = new BenchCore;
  report_received_in_stats(&core->counter());
  try {
    S server(config, *core);
    start_stop_watchers([core] { core->shutdown(); });
    server.serve([&](const std::string& endpoint) {
      core->on_shutdown([&server] { server.stop(); });
      print_ready(endpoint, server_worker_info(config.target, spec.orb.c_str(), spec.version));
    });
    print_exit(core->counters());
    // _exit, before the server is destroyed: a sync() still waiting on one of the middleware's threads must not
    // hold the process, and a late stop request must find the server still there. The protocol lines are out.
    _exit(0);
  } catch (const std::exception& e) {
    print_start_error(spec.orb + ": " + e.what());
    return 1;
  }
}

}  // namespace orbench
