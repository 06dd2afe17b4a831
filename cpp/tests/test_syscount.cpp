// The send/recv-family counter (syscount/syscount.cpp), preloaded as the harness preloads it (ctest sets
// LD_PRELOAD): each function counted once per call whatever its outcome, errno kept, threads that ended still
// counted and their slots reused, a forked child counting apart from its parent; read back through
// /proc/self/fd as the anatomy's snapshot script reads it. Prints the counter's cost per call, measured
// against libc's own send in the same run.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "check.hpp"
#include "syscount_layout.hpp"

extern "C" ssize_t __recv_chk(int fd, void* buffer, size_t length, size_t buffer_length, int flags);
extern "C" ssize_t __recvfrom_chk(int fd, void* buffer, size_t length, size_t buffer_length, int flags,
                                  sockaddr* address, socklen_t* address_length);

namespace sc = orbench::syscount;

namespace {

struct Counts {
  bool found = false;
  uint64_t pid = 0;
  uint64_t slots_used = 0;
  std::array<uint64_t, sc::kCounters> calls{};

  uint64_t sends() const { return calls[sc::kSend] + calls[sc::kSendto] + calls[sc::kSendmsg] + calls[sc::kSendmmsg]; }
  uint64_t recvs() const { return calls[sc::kRecv] + calls[sc::kRecvfrom] + calls[sc::kRecvmsg] + calls[sc::kRecvmmsg]; }
};

// The process's region, found by its memfd's name among /proc/self/fd, as the harness finds a worker's.
Counts read_counts() {
  Counts out;
  for (int fd = 0; fd < 1024; ++fd) {
    char link[64], target[256];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    if (std::string(target).rfind(std::string("/memfd:") + sc::kMemfdName, 0) != 0) continue;
    const int in = open(link, O_RDONLY);
    if (in < 0) continue;
    std::vector<uint64_t> words(sc::kHeaderWords + sc::kSlots * sc::kCounters);
    const ssize_t got = pread(in, words.data(), words.size() * sizeof(uint64_t), 0);
    close(in);
    if (got != static_cast<ssize_t>(words.size() * sizeof(uint64_t)) || words[sc::kHeaderMagic] != sc::kMagic) {
      continue;
    }
    out.found = true;
    out.pid = words[sc::kHeaderPid];
    out.slots_used = words[sc::kHeaderSlotsUsed];
    for (uint64_t slot = 0; slot < out.slots_used; ++slot) {
      for (unsigned c = 0; c < sc::kCounters; ++c) {
        out.calls[c] += words[sc::kHeaderWords + slot * sc::kCounters + c];
      }
    }
    return out;
  }
  return out;
}

Counts operator-(Counts a, const Counts& b) {
  for (unsigned c = 0; c < sc::kCounters; ++c) a.calls[c] -= b.calls[c];
  return a;
}

void counts_each_function_once() {
  int pair[2];
  CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, pair) == 0);
  char byte = 'x', in[16];
  iovec io{&byte, 1};
  msghdr message{};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  mmsghdr messages[2]{};
  messages[0].msg_hdr = message;
  messages[1].msg_hdr = message;
  const Counts before = read_counts();
  CHECK(send(pair[0], &byte, 1, 0) == 1);
  CHECK(recv(pair[1], in, sizeof in, 0) == 1);
  CHECK(sendto(pair[0], &byte, 1, 0, nullptr, 0) == 1);
  CHECK(recvfrom(pair[1], in, sizeof in, 0, nullptr, nullptr) == 1);
  CHECK(sendmsg(pair[0], &message, 0) == 1);
  CHECK(recvmsg(pair[1], &message, 0) == 1);
  CHECK(sendmmsg(pair[0], messages, 2, 0) == 2);  // one call, two messages: one count
  CHECK(recvmmsg(pair[1], messages, 2, 0, nullptr) == 2);
  CHECK(send(pair[0], &byte, 1, 0) == 1);
  CHECK(__recv_chk(pair[1], in, 1, sizeof in, 0) == 1);  // what a fortified recv() compiles to
  CHECK(send(pair[0], &byte, 1, 0) == 1);
  CHECK(__recvfrom_chk(pair[1], in, 1, sizeof in, 0, nullptr, nullptr) == 1);
  const Counts d = read_counts() - before;
  CHECK(d.calls[sc::kSend] == 3);
  CHECK(d.calls[sc::kSendto] == 1);
  CHECK(d.calls[sc::kSendmsg] == 1);
  CHECK(d.calls[sc::kSendmmsg] == 1);
  CHECK(d.calls[sc::kRecv] == 2);
  CHECK(d.calls[sc::kRecvfrom] == 2);
  CHECK(d.calls[sc::kRecvmsg] == 1);
  CHECK(d.calls[sc::kRecvmmsg] == 1);
  // read() and write() are not counted here (the kernel's syscr and syscw count them).
  CHECK(write(pair[0], &byte, 1) == 1 && read(pair[1], in, sizeof in) == 1);
  CHECK((read_counts() - before).sends() == 6);
  close(pair[0]);
  close(pair[1]);
}

void counts_failed_calls_and_keeps_errno() {
  const Counts before = read_counts();
  char byte = 0;
  errno = 0;
  CHECK(send(-1, &byte, 1, 0) == -1);
  CHECK(errno == EBADF);
  errno = 0;
  CHECK(recv(-1, &byte, 1, MSG_DONTWAIT) == -1);
  CHECK(errno == EBADF);
  const Counts d = read_counts() - before;
  CHECK(d.sends() == 1 && d.recvs() == 1);
}

// Threads count into slots of their own, and what they counted stays when they end; a slot freed by an ended
// thread is taken by the next one, so threads that come and go do not use up the slots.
void counts_ended_threads() {
  const Counts before = read_counts();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([] {
      char byte = 0;
      for (int i = 0; i < 1000; ++i) send(-1, &byte, 1, 0);
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 3 * static_cast<int>(sc::kSlots); ++t) {
    std::thread([] {
      char byte = 0;
      recv(-1, &byte, 1, 0);
    }).join();
  }
  const Counts after = read_counts();
  const Counts d = after - before;
  CHECK(d.sends() == 4000);
  CHECK(d.recvs() == 3 * sc::kSlots);
  CHECK(after.slots_used < 16);
}

void forked_child_counts_apart() {
  const Counts before = read_counts();
  const pid_t child = fork();
  if (child == 0) {
    char byte = 0;
    for (int i = 0; i < 5; ++i) send(-1, &byte, 1, 0);
    const Counts own = read_counts();
    _exit(own.found && own.pid == static_cast<uint64_t>(getpid()) && own.sends() == 5 && own.recvs() == 0 ? 0 : 1);
  }
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK((read_counts() - before).sends() == 0);
}

// The counter's cost: send() on a closed descriptor (EBADF: a real system call, the shortest one) through the
// counter and through libc's own send, in short blocks of each, alternating; the median of the blocks'
// differences. Printed, not asserted: a loaded machine makes timing flaky, and the system call's own spread is
// far larger than the few instructions the counter adds.
void print_cost() {
  void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  auto libc_send = reinterpret_cast<decltype(&::send)>(libc ? dlsym(libc, "send") : nullptr);
  CHECK(libc_send != nullptr && libc_send != &::send);
  if (libc_send == nullptr) return;
  constexpr int kBlocks = 400, kCalls = 1000;
  auto block = [&](bool counted) {
    char byte = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) {
      counted ? send(-1, &byte, 1, 0) : libc_send(-1, &byte, 1, 0);
    }
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / kCalls;
  };
  std::vector<double> counted, plain, differences;
  for (int b = 0; b < kBlocks; ++b) {
    const bool counted_first = b % 2 == 0;
    const double first = block(counted_first), second = block(!counted_first);
    counted.push_back(counted_first ? first : second);
    plain.push_back(counted_first ? second : first);
    differences.push_back(counted.back() - plain.back());
  }
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  std::printf("send(-1): %.1f ns counted, %.1f ns through libc directly (medians of %d blocks of %d calls): "
              "the counter costs %.1f ns per call (median of the paired differences)\n",
              median(counted), median(plain), kBlocks, kCalls, median(differences));
}

}  // namespace

int main() {
  const Counts start = read_counts();
  if (!start.found) {
    std::fprintf(stderr, "test_syscount: no orbench-syscount memfd in this process: run it with "
                         "LD_PRELOAD=liborbench-syscount.so (ctest does)\n");
    return 1;
  }
  CHECK(start.pid == static_cast<uint64_t>(getpid()));
  counts_each_function_once();
  counts_failed_calls_and_keeps_errno();
  counts_ended_threads();
  forked_child_counts_apart();
  print_cost();
  return orbench_test::finish("test_syscount");
}
