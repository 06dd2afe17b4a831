// The counting region of liborbench-syscount.so (syscount.cpp): what the library writes and what a reader (the
// anatomy's snapshot script, harness/orbench/anatomy/syscount.py; the ctest) reads. Every field is a
// native-endian uint64: a header of 8, then slots of 8 counters each, one cache line per slot.
//
// The region is a memfd named "orbench-syscount", mapped shared by the process: a reader finds it among the
// process's file descriptors (/proc/PID/fd/N -> "/memfd:orbench-syscount (deleted)") and reads it there. A
// process's counts are the sums over its slots [0, slots_used).
#pragma once

#include <cstdint>

namespace orbench::syscount {

constexpr const char* kMemfdName = "orbench-syscount";
constexpr uint64_t kMagic = 0x314353595342524fULL;  // the bytes "ORBSYSC1" read as a little-endian uint64
constexpr uint64_t kLayoutVersion = 1;

// Header words.
enum Header : unsigned {
  kHeaderMagic,
  kHeaderVersion,
  kHeaderPid,         // the process that maps it
  kHeaderCounters,    // counters per slot (kCounters)
  kHeaderSlots,       // slots in the region
  kHeaderSlotsUsed,   // slots claimed so far: a reader sums [0, slots_used)
  kHeaderWords = 8,
};

// Counters of a slot: calls of each function (a fortified __recv_chk counts as recv, __recvfrom_chk as
// recvfrom), whatever their outcome, as the kernel's syscr and syscw count read and write calls.
enum Counter : unsigned {
  kSend,
  kSendto,
  kSendmsg,
  kSendmmsg,
  kRecv,
  kRecvfrom,
  kRecvmsg,
  kRecvmmsg,
  kCounters,
};

constexpr unsigned kSlots = 1024;  // slot 0 is shared (atomic adds); 1..kSlots-1 each belong to one live thread

}  // namespace orbench::syscount
