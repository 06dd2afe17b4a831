#include "server_kit.hpp"

#include <stdexcept>
#include <thread>

namespace orbench {

void BenchCore::track_objects(uint32_t objects) {
  counter_.track_objects(objects);
  objects_ = objects;
}

void BenchCore::shutdown() {
  std::function<void()> stop;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    requested_ = true;
    if (stopped_ || !stop_) return;
    stopped_ = true;
    stop = stop_;
  }
  std::thread(stop).detach();
}

void BenchCore::on_shutdown(std::function<void()> stop) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = std::move(stop);
    if (!requested_) return;
  }
  shutdown();  // asked for before the server listened
}

ServerConfig parse_server_config(int argc, char** argv, const ServerSpec& spec) {
  std::vector<char*> worker_argv{argv[0]};
  ServerConfig config;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!spec.middleware_prefix.empty() && arg.rfind(spec.middleware_prefix, 0) == 0) {
      config.middleware_args.push_back(arg);
      if (spec.middleware_arg_values && i + 1 < argc) config.middleware_args.push_back(argv[++i]);
    } else {
      worker_argv.push_back(argv[i]);
    }
  }
  std::vector<std::string> values = spec.values;
  values.push_back("--target");
  if (spec.takes_objects) values.push_back("--objects");
  ServerArgs args = parse_server_args(static_cast<int>(worker_argv.size()), worker_argv.data(), {}, values);
  config.host = args.host;
  config.port = args.port;
  config.options = parse_server_options(args.options);
  if (!config.options.empty() && !spec.takes_options) {
    throw std::invalid_argument(spec.target + " sets no server options (" + spec.no_options_because + ")");
  }
  const auto target = args.values.find("--target");
  config.target = target == args.values.end() ? spec.target : target->second;
  config.objects = objects_arg(args);
  args.values.erase("--target");
  args.values.erase("--objects");
  config.values = std::move(args.values);
  return config;
}

}  // namespace orbench
