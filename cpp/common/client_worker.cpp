#include "client_worker.hpp"

#include <gnu/libc-version.h>
#include <unistd.h>

#include <new>
#include <optional>

#include "clock.hpp"
#include "load_spec.hpp"
#include "protocol_out.hpp"
#include "run_spec.hpp"
#include "turns.hpp"
#include "worker_error.hpp"

namespace orbench {

using nlohmann::json;
using nlohmann::ordered_json;

std::string cxx_runtime_description() {
  return std::string("g++ ") + __VERSION__ + ", glibc " + gnu_get_libc_version();
}

namespace {

ordered_json hello(const ClientWorker& worker) {
  return {{"worker", worker.worker_info()},
          {"pid", getpid()},
          {"timer", {{"clock", kClockName}, {"cost_ns", timer_cost_ns(timer_reads())}}},
          {"modes", worker.modes()},
          {"payload_types", worker.payload_types()},
          {"shapes", worker.shapes()},
          {"turns", true}};
}

void connect(ClientWorker& worker, const json& command) {
  reject_unknown_fields(command, {"endpoint", "options"});
  const auto endpoint = command.find("endpoint");
  if (endpoint == command.end() || !endpoint->is_string()) {
    throw WorkerError(ErrorKind::usage, "connect needs a string field \"endpoint\"");
  }
  json options = json::object();
  if (const auto it = command.find("options"); it != command.end() && !it->is_null()) {
    if (!it->is_object()) throw WorkerError(ErrorKind::usage, "field \"options\" must be an object");
    options = *it;
  }
  worker.connect(endpoint->get<std::string>(), options);
}

// The body of an answer (without ok/id), or a WorkerError.
ordered_json dispatch(ClientWorker& worker, const json& command, bool& quit, const EventSink& events) {
  if (!command.is_object()) throw WorkerError(ErrorKind::usage, "a command must be a JSON object");
  const auto cmd = command.find("cmd");
  if (cmd == command.end() || !cmd->is_string()) throw WorkerError(ErrorKind::usage, "missing string field \"cmd\"");
  const std::string name = cmd->get<std::string>();
  if (name == "hello") {
    reject_unknown_fields(command, {});
    return hello(worker);
  }
  if (name == "connect") {
    connect(worker, command);
    return ordered_json::object();
  }
  if (name == "run") {
    json fields = command;
    const LoadSpec load = take_load_spec(fields);
    const std::optional<SoakSpec> soak = take_soak_spec(fields);
    const std::optional<TurnsSpec> turns = take_turns_spec(fields);
    const ShapeSpec shape = take_shape_spec(fields, worker.shapes());
    RunSpec spec = parse_run_spec(fields, worker.modes(), worker.payload_types(), soak.has_value());
    spec.shape = shape;
    if (turns) {
      if (soak || !shape.is_in() || load.threads > 1 || load.objects > 1 || load.rate_hz > 0 || load.shared()) {
        throw WorkerError(ErrorKind::unsupported, "turns need a closed-loop run of one client on one thread");
      }
      return run_in_turns(worker.driver(), spec, *turns);
    }
    if (!shape.is_in() && (soak || load.threads > 1 || load.objects > 1 || load.rate_hz > 0 || load.shared())) {
      throw WorkerError(ErrorKind::unsupported,
                        "shape \"" + shape.name() + "\" is run by one closed-loop client on one thread and object");
    }
    if (!soak) return run_benchmark(worker.driver(), spec, load);
    const EventSink with_id = [&](ordered_json event) {
      if (command.contains("id")) event["id"] = command["id"];
      events(std::move(event));
    };
    return run_soak(worker.driver(), spec, load, *soak, with_id);
  }
  if (name == "reset_counters") {
    // For a group of clients: the harness resets the shared server once, before it starts them all.
    reject_unknown_fields(command, {});
    worker.driver().reset_counters();
    return ordered_json::object();
  }
  if (name == "shutdown_server") {
    // check-target's: the server must reply, then stop (PROTOCOL.md, "Client worker").
    reject_unknown_fields(command, {});
    worker.driver().shutdown_server();
    return ordered_json::object();
  }
  if (name == "quit") {
    reject_unknown_fields(command, {});
    quit = true;
    return ordered_json::object();
  }
  throw WorkerError(ErrorKind::usage, "unknown command \"" + name + "\"");
}

ordered_json error_answer(ErrorKind kind, const std::string& message) {
  return {{"ok", false}, {"error", message}, {"error_kind", error_kind_name(kind)}};
}

}  // namespace

ordered_json handle_command_line(ClientWorker& worker, const std::string& line, bool& quit) {
  return handle_command_line(worker, line, quit, [](ordered_json event) { write_protocol_line(event); });
}

ordered_json handle_command_line(ClientWorker& worker, const std::string& line, bool& quit, const EventSink& events) {
  json command;
  try {
    command = json::parse(line);
  } catch (const json::parse_error& e) {
    return error_answer(ErrorKind::usage, std::string("not JSON: ") + e.what());
  }
  ordered_json answer;
  try {
    ordered_json body = dispatch(worker, command, quit, events);
    answer = {{"ok", true}};
    for (auto& item : body.items()) answer[item.key()] = std::move(item.value());
  } catch (const WorkerError& e) {
    answer = error_answer(e.kind(), e.what());
  } catch (const std::bad_alloc&) {
    answer = error_answer(ErrorKind::internal, "out of memory");
  } catch (const std::exception& e) {
    answer = error_answer(ErrorKind::internal, e.what());
  }
  if (command.is_object() && command.contains("id")) answer["id"] = command["id"];
  return answer;
}

void run_client_loop(ClientWorker& worker, std::istream& in) {
  std::string line;
  bool quit = false;
  while (!quit && std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank lines are not commands
    write_protocol_line(handle_command_line(worker, line, quit));
  }
}

}  // namespace orbench
