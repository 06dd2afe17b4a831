// liborbench-syscount.so: counts a process's send- and recv-family socket calls (send, sendto, sendmsg,
// sendmmsg, recv, recvfrom, recvmsg, recvmmsg), which the kernel's /proc/PID/io does not count (its syscr and
// syscw count only read- and write-family calls), so that the anatomy of a call sees every call a worker makes
// to move a message. The harness preloads it (LD_PRELOAD) into every worker, C++, Java and Python alike: a
// call through libc's dynamic symbol (a C or C++ program, omniORB, a JNI library, CPython's socket module)
// reaches the function here, which counts it and calls libc's.
//
// Inside a timed call this costs a plain load and store into the calling thread's own slot (no atomic
// read-modify-write, no lock), reached through initial-exec TLS, and a call through a pointer: a few ns next
// to the system call itself (cpp/tests/test_syscount prints it). The slots live in a memfd the process maps
// shared (syscount_layout.hpp), which the anatomy reads from outside, between trials.
#undef _FORTIFY_SOURCE  // this file defines recv and recvfrom: no inline fortified wrappers of them here

#include <dlfcn.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "syscount_layout.hpp"

// The fortified forms a program built with _FORTIFY_SOURCE calls instead of recv and recvfrom (glibc).
extern "C" ssize_t __recv_chk(int fd, void* buffer, size_t length, size_t buffer_length, int flags);
extern "C" ssize_t __recvfrom_chk(int fd, void* buffer, size_t length, size_t buffer_length, int flags,
                                  sockaddr* address, socklen_t* address_length);

namespace {

using namespace orbench::syscount;

struct alignas(64) Slot {  // one cache line: threads never share a line they write
  std::atomic<uint64_t> calls[kCounters];
};
static_assert(sizeof(Slot) == 64, "a slot is one cache line");

struct Region {
  std::atomic<uint64_t> header[kHeaderWords];
  Slot slots[kSlots];
};
static_assert(sizeof(Region) == 64 * (kSlots + 1), "the layout of syscount_layout.hpp");

Region* region = nullptr;  // nullptr when the memfd could not be made: counts then go to `unmapped`
int region_fd = -1;
Slot unmapped;             // nobody reads it
Slot* shared = &unmapped;  // the slot threads share (atomic adds): slot 0, or `unmapped`

// Slots are claimed under this lock, once per thread, and given back when a thread ends (pthread key
// destructor), so that threads that come and go reuse them; a slot keeps its counts when it changes hands.
pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
unsigned free_slots[kSlots];
unsigned free_count = 0;
pthread_key_t slot_key;
bool have_key = false;
__thread Slot* own_slot __attribute__((tls_model("initial-exec"))) = nullptr;

void release_slot(void* value) {
  own_slot = nullptr;
  auto* slot = static_cast<Slot*>(value);
  if (region == nullptr || slot <= &region->slots[0] || slot >= &region->slots[kSlots]) {
    return;  // the shared slot, or one of a region this process no longer has (after a fork)
  }
  pthread_mutex_lock(&slots_lock);
  free_slots[free_count++] = static_cast<unsigned>(slot - region->slots);
  pthread_mutex_unlock(&slots_lock);
}

__attribute__((noinline)) Slot* claim_slot() {
  if (region == nullptr) {
    return own_slot = shared;
  }
  pthread_mutex_lock(&slots_lock);
  unsigned index = 0;  // every slot taken by a live thread: share slot 0
  if (free_count > 0) {
    index = free_slots[--free_count];
  } else {
    const uint64_t used = region->header[kHeaderSlotsUsed].load(std::memory_order_relaxed);
    if (used < kSlots) {
      index = static_cast<unsigned>(used);
      region->header[kHeaderSlotsUsed].store(used + 1, std::memory_order_release);
    }
  }
  pthread_mutex_unlock(&slots_lock);
  Slot* slot = &region->slots[index];
  if (index != 0 && have_key) {
    pthread_setspecific(slot_key, slot);
  }
  return own_slot = slot;
}

inline void count(Counter which) {
  Slot* slot = own_slot;
  if (__builtin_expect(slot == nullptr, 0)) {
    slot = claim_slot();
  }
  std::atomic<uint64_t>& calls = slot->calls[which];
  if (__builtin_expect(slot == shared, 0)) {
    calls.fetch_add(1, std::memory_order_relaxed);
  } else {
    // Only this thread writes its slot: load + store is an exact count, and a reader sees a recent value.
    calls.store(calls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
}

void map_region() {
  const int fd = memfd_create(kMemfdName, MFD_CLOEXEC);
  if (fd < 0) {
    std::fprintf(stderr, "orbench-syscount: memfd_create: %s: send/recv calls are not counted\n",
                 std::strerror(errno));
    return;
  }
  void* memory = MAP_FAILED;
  if (ftruncate(fd, sizeof(Region)) == 0) {
    memory = mmap(nullptr, sizeof(Region), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  if (memory == MAP_FAILED) {
    std::fprintf(stderr, "orbench-syscount: cannot map its memfd: %s: send/recv calls are not counted\n",
                 std::strerror(errno));
    close(fd);
    return;
  }
  region = static_cast<Region*>(memory);  // zero-filled by the kernel
  region_fd = fd;
  region->header[kHeaderVersion].store(kLayoutVersion, std::memory_order_relaxed);
  region->header[kHeaderPid].store(static_cast<uint64_t>(getpid()), std::memory_order_relaxed);
  region->header[kHeaderCounters].store(kCounters, std::memory_order_relaxed);
  region->header[kHeaderSlots].store(kSlots, std::memory_order_relaxed);
  region->header[kHeaderSlotsUsed].store(1, std::memory_order_relaxed);  // slot 0, the shared one
  region->header[kHeaderMagic].store(kMagic, std::memory_order_release);
  shared = &region->slots[0];
}

void before_fork() { pthread_mutex_lock(&slots_lock); }

void after_fork_in_parent() { pthread_mutex_unlock(&slots_lock); }

// The child has only the thread that forked, and the parent's region mapped: it counts into a region of its
// own, so that the parent's counts are the parent's.
void after_fork_in_child() {
  Region* parents = region;
  const int parents_fd = region_fd;
  region = nullptr;
  region_fd = -1;
  shared = &unmapped;
  own_slot = nullptr;
  free_count = 0;
  if (have_key) {
    pthread_setspecific(slot_key, nullptr);
  }
  pthread_mutex_unlock(&slots_lock);
  if (parents != nullptr) {
    munmap(parents, sizeof(Region));
    close(parents_fd);
  }
  map_region();
}

// libc's functions, found once (the constructor), or at a first call that comes before it.
template <typename F>
struct Next {
  const char* name;
  std::atomic<F> function{nullptr};

  F get() {
    F f = function.load(std::memory_order_relaxed);
    if (__builtin_expect(f == nullptr, 0)) {
      f = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
      function.store(f, std::memory_order_relaxed);
    }
    return f;
  }
};

Next<decltype(&::send)> next_send{"send"};
Next<decltype(&::sendto)> next_sendto{"sendto"};
Next<decltype(&::sendmsg)> next_sendmsg{"sendmsg"};
Next<decltype(&::sendmmsg)> next_sendmmsg{"sendmmsg"};
Next<decltype(&::recv)> next_recv{"recv"};
Next<decltype(&::recvfrom)> next_recvfrom{"recvfrom"};
Next<decltype(&::recvmsg)> next_recvmsg{"recvmsg"};
Next<decltype(&::recvmmsg)> next_recvmmsg{"recvmmsg"};
Next<decltype(&::__recv_chk)> next_recv_chk{"__recv_chk"};
Next<decltype(&::__recvfrom_chk)> next_recvfrom_chk{"__recvfrom_chk"};

__attribute__((constructor)) void start() {
  next_send.get(), next_sendto.get(), next_sendmsg.get(), next_sendmmsg.get(), next_recv.get();
  next_recvfrom.get(), next_recvmsg.get(), next_recvmmsg.get(), next_recv_chk.get(), next_recvfrom_chk.get();
  have_key = pthread_key_create(&slot_key, release_slot) == 0;
  map_region();
  pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
}

// A function libc lacks (none on glibc): the call fails as an unknown system call would.
template <typename F>
bool missing(F f) {
  if (f != nullptr) {
    return false;
  }
  errno = ENOSYS;
  return true;
}

}  // namespace

#define ORBENCH_EXPORT extern "C" __attribute__((visibility("default")))

ORBENCH_EXPORT ssize_t send(int fd, const void* buffer, size_t length, int flags) {
  count(kSend);
  auto f = next_send.get();
  return missing(f) ? -1 : f(fd, buffer, length, flags);
}

ORBENCH_EXPORT ssize_t sendto(int fd, const void* buffer, size_t length, int flags, const sockaddr* address,
                              socklen_t address_length) {
  count(kSendto);
  auto f = next_sendto.get();
  return missing(f) ? -1 : f(fd, buffer, length, flags, address, address_length);
}

ORBENCH_EXPORT ssize_t sendmsg(int fd, const msghdr* message, int flags) {
  count(kSendmsg);
  auto f = next_sendmsg.get();
  return missing(f) ? -1 : f(fd, message, flags);
}

ORBENCH_EXPORT int sendmmsg(int fd, mmsghdr* messages, unsigned int count_of_messages, int flags) {
  count(kSendmmsg);
  auto f = next_sendmmsg.get();
  return missing(f) ? -1 : f(fd, messages, count_of_messages, flags);
}

ORBENCH_EXPORT ssize_t recv(int fd, void* buffer, size_t length, int flags) {
  count(kRecv);
  auto f = next_recv.get();
  return missing(f) ? -1 : f(fd, buffer, length, flags);
}

ORBENCH_EXPORT ssize_t __recv_chk(int fd, void* buffer, size_t length, size_t buffer_length, int flags) {
  count(kRecv);
  auto f = next_recv_chk.get();
  return missing(f) ? -1 : f(fd, buffer, length, buffer_length, flags);
}

ORBENCH_EXPORT ssize_t recvfrom(int fd, void* buffer, size_t length, int flags, sockaddr* address,
                                socklen_t* address_length) {
  count(kRecvfrom);
  auto f = next_recvfrom.get();
  return missing(f) ? -1 : f(fd, buffer, length, flags, address, address_length);
}

ORBENCH_EXPORT ssize_t __recvfrom_chk(int fd, void* buffer, size_t length, size_t buffer_length, int flags,
                                      sockaddr* address, socklen_t* address_length) {
  count(kRecvfrom);
  auto f = next_recvfrom_chk.get();
  return missing(f) ? -1 : f(fd, buffer, length, buffer_length, flags, address, address_length);
}

ORBENCH_EXPORT ssize_t recvmsg(int fd, msghdr* message, int flags) {
  count(kRecvmsg);
  auto f = next_recvmsg.get();
  return missing(f) ? -1 : f(fd, message, flags);
}

ORBENCH_EXPORT int recvmmsg(int fd, mmsghdr* messages, unsigned int count_of_messages, int flags,
                            timespec* timeout) {
  count(kRecvmmsg);
  auto f = next_recvmmsg.get();
  return missing(f) ? -1 : f(fd, messages, count_of_messages, flags, timeout);
}
