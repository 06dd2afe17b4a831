// The server worker of an ORB target (PROTOCOL.md, "Server worker"), against the standard CORBA C++ mapping, on
// the server kit (server_kit.hpp): activates one BenchServant in the RootPOA (K with --objects K), serves until
// shutdown(), stdin EOF, SIGTERM or SIGINT, with the first object's IOR as its endpoint. -ORB... arguments go to
// ORB_init; --orb-threads N has N threads call ORB::run() (TAO's thread-pool model with its reactive strategy;
// omniORB dispatches on threads of its own either way).
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bench_servant.hpp"
#include "dsi_servant.hpp"
#include "corba_errors.hpp"
#include "orb_args.hpp"
#include "orb_port.hpp"
#include "server_kit.hpp"

namespace orbench {
namespace {

// ORB::run() on a thread of the pool; it returns once the ORB shuts down.
void run_orb(CORBA::ORB_ptr orb) {
  try {
    orb->run();
  } catch (const CORBA::Exception&) {
    // Shut down while starting: nothing left to serve.
  }
}

class OrbServer {
 public:
  static ServerSpec spec() {
    ServerSpec spec{orb_port::target_name(), orb_port::orb_name(), orb_port::orb_version()};
    spec.values = {"--orb-threads"};
    spec.middleware_prefix = "-ORB";
    spec.middleware_arg_values = true;
    spec.takes_options = true;
    spec.takes_objects = true;
    return spec;
  }

  OrbServer(const ServerConfig& config, BenchCore& core)
      : threads_(config.integer("--orb-threads", 1, 1, 1024, "a number of threads, 1 to 1024")) {
    std::vector<std::string> orb_args{config.target};
    for (auto& arg : orb_port::server_orb_args(config.host, config.port)) orb_args.push_back(arg);
    for (auto& arg : config.middleware_args) orb_args.push_back(arg);
    try {
      for (auto& arg : orb_port::server_option_args(config.options)) orb_args.push_back(arg);
    } catch (const WorkerError& e) {
      throw std::invalid_argument(e.what());  // an option this ORB cannot set
    }
    with_corba_errors("start", [&] {
      OrbArgs orb_argv(orb_args);
      orb_ = CORBA::ORB_init(orb_argv.argc(), orb_argv.argv());
      CORBA::Object_var object = orb_->resolve_initial_references("RootPOA");
      poa_ = PortableServer::POA::_narrow(object.in());
      // K servants of the one class, each activated in the RootPOA with a system id: its active object map
      // holds K entries, which is what a request's object key is demultiplexed against. Leaked: upcalls may
      // still use the directory while main returns.
      auto* directory = new ObjectDirectory(orb_.in());
      for (uint32_t k = 0; k < config.objects; ++k) {
        PortableServer::ServantBase_var servant = new BenchServant(core, *directory, k);
        PortableServer::ObjectId_var id = poa_->activate_object(servant.in());
        CORBA::Object_var reference = poa_->id_to_reference(id.in());
        directory->add(reference.in());
      }
      CORBA::Object_var dsi = activate_dsi(orb_.in(), poa_.in(), core);
      directory->set_dsi(dsi.in());
      CORBA::String_var ior = orb_->object_to_string(directory->reference(0));
      ior_ = ior.in();
    });
  }

  void serve(const std::function<void(const std::string&)>& ready) {
    with_corba_errors("serve", [&] {
      PortableServer::POAManager_var manager = poa_->the_POAManager();
      manager->activate();
      ready(ior_);
      std::vector<std::thread> runners;
      for (int64_t i = 1; i < threads_; ++i) runners.emplace_back(run_orb, orb_.in());
      orb_->run();
      for (auto& runner : runners) runner.join();
      std::lock_guard<std::mutex> lock(mutex_);
      destroyed_ = true;
      orb_->destroy();  // waits for the upcalls still running
    });
  }

  // false: it may run while an upcall waits, where waiting for it to finish would deadlock.
  void stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (destroyed_) return;
    try {
      orb_->shutdown(false);
    } catch (const CORBA::Exception&) {
      // Already shutting down: nothing left to do.
    }
  }

 private:
  const int64_t threads_;
  CORBA::ORB_var orb_;
  PortableServer::POA_var poa_;
  std::string ior_;
  std::mutex mutex_;
  bool destroyed_ = false;
};

}  // namespace
}  // namespace orbench

int main(int argc, char** argv) { return orbench::server_main<orbench::OrbServer>(argc, argv); }
