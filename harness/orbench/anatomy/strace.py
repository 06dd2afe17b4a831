"""The opt-in anatomy mode's syscall count: `strace -c -f` attached to a running worker for one trial.

strace stops the traced thread at every system call (ptrace), which costs microseconds per call: a traced
trial's latency is not a latency result, and the anatomy mode keeps these trials apart. What it gives is the
full mix: every system call the process made (send/recv, futex, epoll, poll...), with its error count.

Start and stop are shell scripts, run on the worker's host by the same `shell` as the snapshots: strace runs
there in the background (nohup), attached to every thread of the process (-p per thread; -f follows threads
started later); the start script returns once every thread shows a tracer (/proc/PID/task/*/status
TracerPid), so no call of the trial goes uncounted. Stopping sends SIGINT: strace detaches and writes its
summary (-c) to its output file, which the stop script prints and removes.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from orbench.anatomy.delta import pairs_text
from orbench.anatomy.snapshot import Shell

ATTACH_TIMEOUT_S = 10

START_SCRIPT = r"""
command -v strace >/dev/null 2>&1 || { echo "strace is not installed"; exit 3; }
[ -d /proc/$PID/task ] || { echo "process $PID is gone"; exit 3; }
args=""
for t in $(ls /proc/$PID/task); do args="$args -p $t"; done
rm -f "$OUT"
nohup strace -c -f -q -o "$OUT" $args >/dev/null 2>&1 </dev/null &
echo "strace $!"
i=0
while [ $i -lt $((TIMEOUT * 20)) ]; do
  untraced=$(grep -h '^TracerPid:' /proc/$PID/task/*/status 2>/dev/null | grep -c ':[[:space:]]*0$')
  [ "$untraced" = 0 ] && exit 0
  sleep 0.05; i=$((i + 1))
done
echo "strace did not attach to every thread of $PID within $TIMEOUT s (ptrace not permitted?)"
kill $! 2>/dev/null
exit 4
"""

STOP_SCRIPT = r"""
kill -INT $SPID 2>/dev/null
i=0
while kill -0 $SPID 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
cat "$OUT" 2>/dev/null
rm -f "$OUT"
"""


class StraceError(RuntimeError):
    """strace could not be started or attached (not installed, ptrace not permitted, process gone)."""


@dataclass(frozen=True)
class SyscallCount:
    calls: int
    errors: int


@dataclass
class StraceSession:
    """One strace attached to one process on one host."""

    shell: Shell
    pid: int
    output: str         # the summary file on that host
    strace_pid: int

    @classmethod
    def attach(cls, shell: Shell, pid: int, output: str) -> StraceSession:
        script = (f"PID={int(pid)}; OUT={shlex.quote(output)}; TIMEOUT={ATTACH_TIMEOUT_S}\n" + START_SCRIPT
                  + "\n")
        text = shell(script).strip()
        lines = text.splitlines()
        first = lines[0] if lines else ""
        if not first.startswith("strace ") or len(lines) > 1:
            raise StraceError(f"cannot trace process {pid}: {text or 'no output'}")
        return cls(shell, pid, output, int(first.split()[1]))

    def stop(self) -> dict[str, SyscallCount]:
        text = self.shell(f"SPID={self.strace_pid}; OUT={shlex.quote(self.output)}\n" + STOP_SCRIPT)
        counts = parse_strace_summary(text)
        if not counts:
            raise StraceError(f"strace of process {self.pid} left no summary: {text.strip()[:300]!r}")
        return counts


def parse_strace_summary(text: str) -> dict[str, SyscallCount]:
    """`strace -c` table rows -> syscall name -> calls and errors. Rows are `% time, seconds, usecs/call, calls,
    [errors,] syscall`; the `total` row is left out."""
    counts: dict[str, SyscallCount] = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) not in (5, 6) or not fields[3].isdigit() or fields[-1] == "total":
            continue
        try:
            float(fields[0])
        except ValueError:
            continue
        errors = int(fields[4]) if len(fields) == 6 else 0
        counts[fields[-1]] = SyscallCount(int(fields[3]), errors)
    return counts


def syscall_fields(role: str, counts: dict[str, SyscallCount], calls: int) -> dict:
    """`<role>_syscalls`: calls per call by syscall name, most frequent first ("name=x;..."), and their sum."""
    if calls <= 0:
        return {f"{role}_syscalls": None, f"{role}_syscalls_total": None}
    per_call = {name: round(c.calls / calls, 3) for name, c in sorted(counts.items(), key=lambda item: -item[1].calls)}
    return {f"{role}_syscalls": pairs_text(per_call),
            f"{role}_syscalls_total": round(sum(c.calls for c in counts.values()) / calls, 3)}
