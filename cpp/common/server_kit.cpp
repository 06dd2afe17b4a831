#include "server_kit.hpp"

#include <algorithm>
#include <stdexcept>
#include <thread>

namespace orbench {

SyncOutcome BenchCore::sync(int64_t expected, int64_t timeout_ms) {
  const auto wanted = static_cast<uint64_t>(std::max<int64_t>(expected, 0));
  const auto timeout = static_cast<uint32_t>(std::clamp<int64_t>(timeout_ms, 0, UINT32_MAX));
  return counter_.wait_for(wanted, timeout);
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
    } else {
      worker_argv.push_back(argv[i]);
    }
  }
  std::vector<std::string> values = spec.values;
  values.push_back("--target");
  ServerArgs args = parse_server_args(static_cast<int>(worker_argv.size()), worker_argv.data(), {}, values);
  config.host = args.host;
  config.port = args.port;
  config.options = parse_server_options(args.options);
  if (!config.options.empty() && !spec.takes_options) {
    throw std::invalid_argument(spec.target + " sets no server options (" + spec.no_options_because + ")");
  }
  const auto target = args.values.find("--target");
  config.target = target == args.values.end() ? spec.target : target->second;
  args.values.erase("--target");
  config.values = std::move(args.values);
  return config;
}

}  // namespace orbench
