"""A worker's send- and recv-family socket calls, counted inside it by liborbench-syscount.so (cpp/syscount/).

/proc/PID/io counts read(2)- and write(2)-family calls only (procfs.py); send, sendto, sendmsg, sendmmsg, recv,
recvfrom, recvmsg and recvmmsg are not counted anywhere in /proc. The harness therefore preloads a small
library into every worker it starts (LD_PRELOAD: C++, Java and Python alike) that counts each of those calls
into a per-thread slot of a memory region (a plain load and store, a few ns inside a timed call; its ctest
prints the cost) and hands it to libc. The region is a memfd the worker maps shared, named `orbench-syscount`:
the snapshot script finds it among the worker's /proc/PID/fd links and reads it with `od`, on the worker's host,
between trials. No file, no directory, nothing to clean up: the region lives and dies with its process.

A call is counted whatever its outcome (as the kernel counts syscr and syscw). A call that does not go through
libc's dynamic symbol is not seen: a static binary, a raw `syscall(2)`, a JVM's FFM downcall bound to libc's
own symbol (the java-ffm transport looks its functions up the way the dynamic linker does, so it is seen).
A worker without the region (the library not built, not deployed, or not loaded) gives no counts: None, never 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# cpp/syscount/syscount_layout.hpp, which the library writes: a header of 8 uint64 words, then slots of 8
# counters (one per function, in COUNTERS order); a process's counts are the sums over slots [0, used).
MEMFD_NAME = "orbench-syscount"
MAGIC = 0x314353595342524F   # the bytes "ORBSYSC1"
LAYOUT_VERSION = 1
HEADER_WORDS = 8
HEADER_PID, HEADER_COUNTERS, HEADER_SLOTS, HEADER_SLOTS_USED = 2, 3, 4, 5
COUNTERS = ("send", "sendto", "sendmsg", "sendmmsg", "recv", "recvfrom", "recvmsg", "recvmmsg")
SEND_FAMILY = COUNTERS[:4]
RECV_FAMILY = COUNTERS[4:]

# Where the build puts the library, relative to the repository (and to a remote host's campaign directory,
# where deploy copies it).
LIBRARY = "cpp/build/liborbench-syscount.so"

# The snapshot script's part for one process ($pid, with `$fds` its `ls -l /proc/$pid/fd`): the header first,
# for the slots in use, then header and those slots. 6 is the header's slots-used word, counted from 1 by `set`.
SNAPSHOT_PART = r"""
  n=$(printf '%s\n' "$fds" | sed -n 's|.* \([0-9][0-9]*\) -> /memfd:""" + MEMFD_NAME + r""" .*|\1|p' | head -n 1)
  if [ -n "$n" ]; then
    set -- $(od -An -v -tu8 -N 64 /proc/$pid/fd/$n 2>/dev/null)
    if [ $# = 8 ] && [ "$6" -ge 1 ] 2>/dev/null && [ "$6" -le 65536 ]; then
      echo "@syscount $pid"; od -An -v -tu8 -N $((64 + $6 * 64)) /proc/$pid/fd/$n 2>/dev/null
    fi
  fi
"""


@dataclass(frozen=True)
class SocketCalls:
    """One process's send- and recv-family calls since it started, by function."""

    calls: dict[str, int]

    @property
    def sends(self) -> int:
        return sum(self.calls.get(name, 0) for name in SEND_FAMILY)

    @property
    def recvs(self) -> int:
        return sum(self.calls.get(name, 0) for name in RECV_FAMILY)


def parse_region(text: str, pid: int) -> SocketCalls | None:
    """The `od -An -tu8` words of a region -> its counts; None when they are not a whole region of this
    layout, written by process `pid` (a region inherited from a parent is its parent's)."""
    try:
        words = [int(w) for w in text.split()]
    except ValueError:
        return None
    if len(words) < HEADER_WORDS or words[0] != MAGIC or words[1] != LAYOUT_VERSION:
        return None
    if words[HEADER_PID] != pid or words[HEADER_COUNTERS] != len(COUNTERS):
        return None
    used = words[HEADER_SLOTS_USED]
    if not 1 <= used <= words[HEADER_SLOTS] or len(words) < HEADER_WORDS + used * len(COUNTERS):
        return None
    totals = [0] * len(COUNTERS)
    for slot in range(used):
        base = HEADER_WORDS + slot * len(COUNTERS)
        for i in range(len(COUNTERS)):
            totals[i] += words[base + i]
    return SocketCalls(dict(zip(COUNTERS, totals, strict=True)))


def preload_value(library: str, existing: str | None = None) -> str | None:
    """LD_PRELOAD's value that adds the counter to `existing` (a process's own preloads, kept after it); None
    when the dynamic linker could not read the path (it splits LD_PRELOAD at spaces and colons)."""
    if any(c in library for c in " :\t\n"):
        return None
    return f"{library}:{existing}" if existing else library


def preloaded_env(library: str | None, environ: Mapping[str, str]) -> dict[str, str] | None:
    """`environ` with the counter preloaded (a local worker's environment); None without a usable library."""
    value = None if library is None else preload_value(library, environ.get("LD_PRELOAD"))
    return None if value is None else {**environ, "LD_PRELOAD": value}


def local_library(root: Path) -> str | None:
    """The built library in the repository `root`, or None when it is not built."""
    path = root / LIBRARY
    return str(path) if path.is_file() else None

