#include "samples_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "worker_error.hpp"

namespace orbench {

// The file format is little-endian; the workers run on x86-64 and arm64 (both little-endian), so the
// in-memory array is written as is rather than byte by byte.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "samples files are little-endian");

namespace {
struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<FILE, FileCloser>;

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw WorkerError(ErrorKind::internal, what + " " + path + ": " + std::strerror(errno));
}
}  // namespace

void write_samples_file(const std::string& path, const std::vector<int64_t>& samples_ns) {
  File file(std::fopen(path.c_str(), "wb"));
  if (!file) fail("cannot open samples file", path);
  if (!samples_ns.empty() &&
      std::fwrite(samples_ns.data(), sizeof(int64_t), samples_ns.size(), file.get()) != samples_ns.size()) {
    fail("cannot write samples file", path);
  }
  if (std::fclose(file.release()) != 0) fail("cannot close samples file", path);
}

std::vector<int64_t> read_samples_file(const std::string& path) {
  File file(std::fopen(path.c_str(), "rb"));
  if (!file) fail("cannot open samples file", path);
  std::vector<int64_t> samples;
  int64_t value;
  while (std::fread(&value, sizeof value, 1, file.get()) == 1) samples.push_back(value);
  return samples;
}

}  // namespace orbench
