// The client side of the worker contract: the JSON-lines command loop, shared by every C++ client worker.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_driver.hpp"
#include "soak.hpp"

namespace orbench {

// What one target's client provides; the loop does the parsing, validation and answering.
class ClientWorker {
 public:
  virtual ~ClientWorker() = default;
  // The "worker" object of `hello`: role, target, language, orb, orb_version, runtime.
  virtual nlohmann::ordered_json worker_info() const = 0;
  // Every mode and payload type of PROTOCOL.md unless the target says otherwise.
  virtual std::vector<std::string> modes() const { return {"twoway", "oneway", "echo"}; }
  virtual std::vector<std::string> payload_types() const {
    return {"octets", "records", "longs", "doubles", "strings"};
  }
  // The invocation shapes it makes (PROTOCOL.md, "Invocation shapes"), by kind ("ami" for every ami-N).
  virtual std::vector<std::string> shapes() const { return {"in"}; }
  // Resolves the endpoint and proves the server answers (one reset_counters). `options` is a JSON object;
  // an option the target does not know is WorkerError(usage).
  virtual void connect(const std::string& endpoint, const nlohmann::json& options) = 0;
  // The connected transport; throws WorkerError when there is none.
  virtual BenchDriver& driver() = 0;
};

// The `runtime` field of hello for a C++ worker: compiler and C library versions.
std::string cxx_runtime_description();

// Answers one command line (never throws); sets `quit` for the `quit` command. Event lines a command sends
// before its answer (a soak's intervals, carrying the command's "id") go to `events`; by default, the
// protocol channel.
nlohmann::ordered_json handle_command_line(ClientWorker& worker, const std::string& line, bool& quit);
nlohmann::ordered_json handle_command_line(ClientWorker& worker, const std::string& line, bool& quit,
                                           const EventSink& events);

// Reads commands from `in` until `quit` or EOF, writing one answer line per command.
void run_client_loop(ClientWorker& worker, std::istream& in);

}  // namespace orbench
