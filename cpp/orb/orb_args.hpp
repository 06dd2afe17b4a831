// Building the argc/argv that CORBA::ORB_init wants from a list of strings.
#pragma once

#include <string>
#include <vector>

namespace orbench {

// Owns the strings; argv() stays valid while this object lives (ORB_init may reorder the pointers).
class OrbArgs {
 public:
  explicit OrbArgs(std::vector<std::string> args) : strings_(std::move(args)) {
    for (auto& s : strings_) pointers_.push_back(s.data());
    pointers_.push_back(nullptr);
    argc_ = static_cast<int>(strings_.size());
  }
  int& argc() { return argc_; }
  char** argv() { return pointers_.data(); }

 private:
  std::vector<std::string> strings_;
  std::vector<char*> pointers_;
  int argc_ = 0;
};

// Splits a worker's command line: "-ORB..." options and their values go to the ORB, the rest to the worker.
inline void split_orb_options(int argc, char** argv, std::vector<std::string>& orb_options,
                              std::vector<std::string>& worker_args) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("-ORB", 0) == 0) {
      orb_options.push_back(arg);
      if (i + 1 < argc) orb_options.push_back(argv[++i]);
    } else {
      worker_args.push_back(arg);
    }
  }
}

}  // namespace orbench
