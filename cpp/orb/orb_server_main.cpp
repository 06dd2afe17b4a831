// The server worker of an ORB target (PROTOCOL.md, "Server worker"), against the standard CORBA C++
// mapping: activates one BenchServant in the RootPOA (K with --objects K), prints the first one's IOR, serves
// until shutdown(), stdin EOF, SIGTERM or SIGINT. -ORB... arguments go to ORB_init; --orb-threads N has N
// threads call ORB::run() (TAO's thread-pool model with its reactive strategy; omniORB dispatches on threads of
// its own either way).
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bench_servant.hpp"
#include "dsi_servant.hpp"
#include "corba_errors.hpp"
#include "orb_args.hpp"
#include "orb_port.hpp"
#include "protocol_out.hpp"
#include "server_support.hpp"
#include "worker_error.hpp"

namespace orbench {
namespace {

// Calls ORB::shutdown(false) once, from whichever thread asks first (servant, signal or stdin watcher).
// Heap-allocated and never freed: the detached watcher threads may call it while main is returning.
class OrbStopper {
 public:
  explicit OrbStopper(CORBA::ORB_ptr orb) : orb_(CORBA::ORB::_duplicate(orb)) {}

  void request_stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    try {
      orb_->shutdown(false);  // false: this may run inside an upcall, where waiting would deadlock
    } catch (const CORBA::Exception&) {
      // Already shutting down: nothing left to do.
    }
  }

  // After this, request_stop() is a no-op, so nobody touches the ORB while main destroys it.
  void forbid() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
  }

 private:
  CORBA::ORB_var orb_;
  std::mutex mutex_;
  bool stopped_ = false;
};

// --orb-threads N: how many threads call ORB::run(), 1 to 1024 (1 when absent).
int orb_threads_arg(const ServerArgs& args) {
  const auto it = args.values.find("--orb-threads");
  if (it == args.values.end()) return 1;
  size_t used = 0;
  int value = 0;
  try {
    value = std::stoi(it->second, &used);
  } catch (const std::exception&) {
  }
  if (used != it->second.size() || value < 1 || value > 1024) {
    throw std::invalid_argument("bad --orb-threads \"" + it->second + "\": a number of threads, 1 to 1024");
  }
  return value;
}

// ORB::run() on a thread of the pool; it returns once the ORB shuts down.
void run_orb(CORBA::ORB_ptr orb) {
  try {
    orb->run();
  } catch (const CORBA::Exception&) {
    // Shut down while starting: nothing left to serve.
  }
}

int serve(int argc, char** argv) {
  block_stop_signals();  // before ORB_init starts any thread
  std::vector<std::string> user_orb_options, worker_args;
  split_orb_options(argc, argv, user_orb_options, worker_args);

  ServerArgs args;
  std::vector<std::string> option_args;
  int orb_threads = 1;
  uint32_t objects = 1;
  {
    std::vector<char*> worker_argv{argv[0]};
    for (auto& arg : worker_args) worker_argv.push_back(arg.data());
    try {
      args = parse_server_args(static_cast<int>(worker_argv.size()), worker_argv.data(), {},
                               {"--orb-threads", "--objects"});
      objects = objects_arg(args);
      option_args = orb_port::server_option_args(parse_server_options(args.options));
      orb_threads = orb_threads_arg(args);
    } catch (const std::invalid_argument& e) {
      print_start_error(e.what());
      return 2;
    } catch (const WorkerError& e) {
      print_start_error(e.what());
      return 2;
    }
  }

  try {
    std::vector<std::string> orb_args{argv[0]};
    for (auto& arg : orb_port::server_orb_args(args.host, args.port)) orb_args.push_back(arg);
    for (auto& arg : user_orb_options) orb_args.push_back(arg);
    for (auto& arg : option_args) orb_args.push_back(arg);
    OrbArgs orb_argv(orb_args);
    CORBA::ORB_var orb = CORBA::ORB_init(orb_argv.argc(), orb_argv.argv());

    CORBA::Object_var object = orb->resolve_initial_references("RootPOA");
    PortableServer::POA_var poa = PortableServer::POA::_narrow(object.in());

    auto* stopper = new OrbStopper(orb.in());
    auto* counter = new MessageCounter;  // leaked with the stopper, for the same reason
    counter->track_objects(objects);
    report_received_in_stats(counter);
    // K servants of the one class, each activated in the RootPOA with a system id: its active object map
    // holds K entries, which is what a request's object key is demultiplexed against.
    auto* directory = new ObjectDirectory(orb.in());  // leaked with the counter: upcalls may still use it
    for (uint32_t k = 0; k < objects; ++k) {
      PortableServer::ServantBase_var servant =
          new BenchServant(*counter, *directory, k, [stopper] { stopper->request_stop(); });
      PortableServer::ObjectId_var id = poa->activate_object(servant.in());
      CORBA::Object_var reference = poa->id_to_reference(id.in());
      directory->add(reference.in());
    }
    CORBA::Object_var dsi = activate_dsi(orb.in(), poa.in(), *counter);
    directory->set_dsi(dsi.in());
    CORBA::String_var ior = orb->object_to_string(directory->reference(0));
    PortableServer::POAManager_var manager = poa->the_POAManager();
    manager->activate();

    start_stop_watchers([stopper] { stopper->request_stop(); });
    nlohmann::ordered_json info = server_worker_info(orb_port::target_name(), orb_port::orb_name(), orb_port::orb_version());
    if (objects > 1) info["objects"] = objects;
    print_ready(ior.in(), info);

    std::vector<std::thread> runners;
    for (int i = 1; i < orb_threads; ++i) runners.emplace_back(run_orb, orb.in());
    orb->run();
    for (auto& runner : runners) runner.join();
    stopper->forbid();
    const Counts received = counter->snapshot();
    orb->destroy();
    print_exit(received);
    return 0;
  } catch (const CORBA::Exception& error) {
    print_start_error(describe_corba_exception(error));
    return 1;
  } catch (const std::exception& error) {
    print_start_error(error.what());
    return 1;
  }
}

}  // namespace
}  // namespace orbench

int main(int argc, char** argv) {
  orbench::reserve_stdout_for_protocol();
  return orbench::serve(argc, argv);
}
