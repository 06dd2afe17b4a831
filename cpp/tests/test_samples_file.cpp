// The samples file: little-endian int64, no header, exactly 8 bytes per call; errors are WorkerErrors.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "check.hpp"
#include "samples_file.hpp"
#include "worker_error.hpp"

using namespace orbench;

int main() {
  const std::string path = "/tmp/orbench-test-samples-" + std::to_string(getpid()) + ".i64";
  const std::vector<int64_t> samples = {1, 0x0102030405060708LL, -2, 5'000'000'000LL};
  write_samples_file(path, samples);

  std::ifstream in(path, std::ios::binary);
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(bytes.size() == 8 * samples.size());
  const std::vector<unsigned char> second = {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
  CHECK(std::vector<unsigned char>(bytes.begin() + 8, bytes.begin() + 16) == second);
  CHECK(bytes[16] == 0xfe && bytes[23] == 0xff);  // -2, two's complement
  CHECK(read_samples_file(path) == samples);

  write_samples_file(path, {});  // a rewrite truncates
  CHECK(read_samples_file(path).empty());
  std::remove(path.c_str());

  CHECK_WORKER_ERROR(write_samples_file("/nonexistent-dir/x.i64", samples), ErrorKind::internal);
  return orbench_test::finish("test_samples_file");
}
