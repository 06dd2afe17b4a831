"""The profile mode's sampling profilers: one attached to a running worker for one trial, its stacks folded.

Each language's own (harness/targets/languages.toml, key `profiler`): `perf record` of the CPU clock for C and
C++ (a software event: it works in a VM without hardware counters), async-profiler for Java (its agent loaded
into the running JVM by jattach; it names JIT-compiled frames through the JVM), py-spy for Python. Each samples
the process's CPU time every `period_ns`, so a stack's samples x period is the CPU time spent in it.

Like strace.py, start and stop are shell scripts run on the worker's host by the anatomy's `shell` (locally
`sh -c`, over SSH on a remote host): the profiler runs there in the background, and the stop script folds its
stacks there and prints them (`stack;frames;root-first count` lines), so only the folded text crosses the link.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from orbench.anatomy.folded import Profile, parse_folded
from orbench.anatomy.snapshot import Shell

PROFILERS = ("perf", "async-profiler", "py-spy")
ATTACH_TIMEOUT_S = 10

# perf: cpu-clock sampled every PERIOD ns, each sample with the user stack's top 8 KB for DWARF unwinding
# (neither libc nor Debian's ORB libraries keep frame pointers). Where the kernel allows it (root, or
# perf_event_paranoid <= 0) the clock runs per CPU on the CPUs the worker may use and `perf script --pid` keeps
# the worker's samples: a per-task clock is stopped at every switch away from the task and, when it expired
# during the switch, restarted 10 us after the task runs again, which piles samples onto the code that runs
# 10 us after each blocking call (the known-answer server's spin read up to 1.7 x its CPU that way). Else per
# task, user space only where perf_event_paranoid >= 2. Per CPU, every process's samples pass through perf's
# buffer (8 KB each): 16 MB of it per CPU keep a busy writer from losing the worker's. -B: no build-id scan at the end
# (`perf script` reads the binaries in place, on the same host). perf reads the process's memory maps before it
# samples, which takes a while on a busy machine: it starts with its events off (-D -1) and the script turns
# them on through perf's control fifo, returning once perf acknowledges, so no call of the trial goes unsampled.
_PERF_START = r"""
command -v perf >/dev/null 2>&1 || { echo "perf is not installed (Debian: apt-get install linux-perf)"; exit 3; }
CPUS=""
for p in $PIDS; do
  [ -d /proc/$p/task ] || { echo "process $p is gone"; exit 3; }
  CPUS="$CPUS${CPUS:+,}$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$p/status)"
done
# The workers' CPUs, each once (perf refuses a CPU listed twice).
CPUS=$(echo "$CPUS" | tr ',' '\n' | awk -F- '{ if (NF == 2) for (i = $1; i <= $2; i++) print i; else print $1 }' \
  | sort -un | paste -sd, -)
PARANOID=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$(id -u)" = 0 ] || [ "$PARANOID" -le 0 ]; then
  EVENT=cpu-clock; WHERE="-m 16M -C $CPUS"; SCOPE=cpu-wide
else
  EVENT=cpu-clock; WHERE="-p $(echo $PIDS | tr ' ' ',')"; SCOPE=per-task
  [ "$PARANOID" -ge 2 ] && EVENT=cpu-clock:u
fi
rm -f "$OUT" "$OUT.log" "$OUT.ctl" "$OUT.ack"
mkfifo "$OUT.ctl" "$OUT.ack" || { echo "cannot make perf's control fifos next to $OUT"; exit 3; }
nohup perf record -e $EVENT -c $PERIOD --call-graph dwarf,8192 -B -D -1 --control "fifo:$OUT.ctl,$OUT.ack" \
  $WHERE -o "$OUT" >"$OUT.log" 2>&1 </dev/null &
P=$!
echo "started $P $EVENT,$SCOPE"
ack=$(timeout $TIMEOUT sh -c 'echo enable > "$1" && head -n 1 "$2"' sh "$OUT.ctl" "$OUT.ack" 2>/dev/null)
[ "$ack" = "ack" ] && exit 0
kill $P 2>/dev/null
echo "perf record did not start sampling $PIDS within $TIMEOUT s: $(tail -n 3 "$OUT.log" | tr '\n' ' ')"
exit 4
"""

# perf script prints each sample's pid on a line, then its call chain, leaf first, one frame a line after a tab
# ("ip symbol (dso)"), a blank line after it; awk folds them root first, each line led by the pid and a tab. A frame without a symbol is named by its binary ([libfoo.so]); kernel
# frames get async-profiler's suffix _[k]. A ';' inside a name (none in C++ symbols) would split a frame.
_PERF_STOP = r"""
kill -INT $SPID 2>/dev/null
i=0
while kill -0 $SPID 2>/dev/null && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
if [ ! -s "$OUT" ]; then echo "@error"; tail -n 5 "$OUT.log"; rm -f "$OUT" "$OUT.log" "$OUT.ctl" "$OUT.ack"; exit 0; fi
echo "@version"; perf --version 2>/dev/null
echo "@folded"
perf script -i "$OUT" --pid "$(echo $PIDS | tr ' ' ',')" -F pid,ip,sym,dso --no-inline 2>/dev/null | awk '
function flush() { if (n > 0) { s = f[n]; for (k = n - 1; k >= 1; k--) s = s ";" f[k]; c[pid "\t" s]++ } n = 0 }
/^[[:space:]]*$/ { flush(); next }
/^[^\t]/ { flush(); pid = $1; next }
{
  line = $0; sub(/^[[:space:]]*[0-9a-f]+[[:space:]]+/, "", line)
  dso = ""; if (match(line, /\([^()]*\)$/)) { dso = substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, 1, RSTART - 1) }
  sub(/[[:space:]]+$/, "", line); sub(/\+0x[0-9a-f]+$/, "", line)
  if (line == "" || line == "[unknown]") { d = dso; sub(/.*\//, "", d); gsub(/[][]/, "", d); line = "[" (d == "" ? "unknown" : d) "]" }
  if (dso ~ /kernel\.kallsyms|^\[kernel/) line = line "_[k]"
  gsub(/;/, ":", line)
  f[++n] = line
}
END { flush(); for (s in c) print s, c[s] }'
rm -f "$OUT" "$OUT.log" "$OUT.ctl" "$OUT.ack"
"""

# async-profiler: the agent library loaded into the JVM by jattach (the JVM's attach mechanism), `start` now,
# `stop` with the stacks in collapsed form, Java frames annotated (_[j] JIT-compiled, _[i] inlined, _[0]
# interpreted, _[k] kernel). event=cpu: perf_events' CPU clock where allowed, else a CPU timer. Every command
# names a file: without one, the agent writes its answer to the JVM's stdout, the worker's protocol channel.
_ASYNC_START = r"""
command -v jattach >/dev/null 2>&1 || { echo "jattach is not installed (Debian: apt-get install jattach)"; exit 3; }
[ -r "$LIB" ] || { echo "async-profiler's library $LIB is missing (make java builds it)"; exit 3; }
[ -d /proc/$PID ] || { echo "process $PID is gone"; exit 3; }
rm -f "$OUT" "$OUT.msg"
out=$(jattach $PID load "$LIB" true "start,event=cpu,interval=$PERIOD,log=$OUT.msg" 2>&1)
msg=$(cat "$OUT.msg" 2>/dev/null); rm -f "$OUT.msg"
case "$msg" in
  *"Profiling started"*) echo "started 0 cpu" ;;
  *) echo "async-profiler did not start in $PID: $(echo "$out $msg" | tail -n 3 | tr '\n' ' ')"; exit 4 ;;
esac
"""

_ASYNC_STOP = r"""
out=$(jattach $PID load "$LIB" true "stop,file=$OUT,collapsed,ann,log=$OUT.msg" 2>&1)
if [ ! -f "$OUT" ]; then echo "@error"; echo "$out" | tail -n 3; exit 0; fi
jattach $PID load "$LIB" true "version,log=$OUT.msg" >/dev/null 2>&1
echo "@version"; sed -n 's/^\([0-9][0-9.]*\).*/async-profiler \1/p' "$OUT.msg" 2>/dev/null | head -n 1; rm -f "$OUT.msg"
echo; echo "@folded"; cat "$OUT"
rm -f "$OUT"
"""

# py-spy: samples the interpreter's Python stacks from outside (process_vm_readv) at RATE per second,
# --nonblocking (never pauses the worker), idle threads left out; SIGINT makes it write the folded stacks
# (`--format raw`). It says "Sampling process" once it is attached.
_PYSPY_START = r"""
[ -x "$PYSPY" ] || { echo "py-spy is not installed at $PYSPY (make python installs it)"; exit 3; }
[ -d /proc/$PID ] || { echo "process $PID is gone"; exit 3; }
rm -f "$OUT" "$OUT.log"
nohup "$PYSPY" record --pid $PID --rate $RATE --format raw --output "$OUT" --nonblocking >"$OUT.log" 2>&1 </dev/null &
P=$!
echo "started $P wall-clock"
i=0
while [ $i -lt $((TIMEOUT * 20)) ]; do
  kill -0 $P 2>/dev/null || { echo "py-spy ended at once: $(tail -n 3 "$OUT.log")"; exit 4; }
  grep -q "Sampling process" "$OUT.log" 2>/dev/null && exit 0
  sleep 0.05; i=$((i + 1))
done
echo "py-spy did not attach to $PID within $TIMEOUT s"
kill $P 2>/dev/null
exit 4
"""

_PYSPY_STOP = r"""
kill -INT $SPID 2>/dev/null
i=0
while kill -0 $SPID 2>/dev/null && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
if [ ! -f "$OUT" ]; then echo "@error"; tail -n 5 "$OUT.log" 2>/dev/null; rm -f "$OUT.log"; exit 0; fi
echo "@version"; "$PYSPY" --version 2>/dev/null
echo "@folded"; cat "$OUT"
rm -f "$OUT" "$OUT.log"
"""


class ProfilerError(RuntimeError):
    """A profiler could not be started or left no stacks (not installed, not permitted, process gone)."""


@dataclass(frozen=True)
class ProfilerTools:
    """Where the profilers' own files are on the worker's host (perf and jattach are commands on its PATH)."""

    async_profiler_lib: str = ""   # libasyncProfiler.so for the host's architecture
    py_spy: str = ""               # the py-spy executable


@dataclass
class ProfilerSession:
    """One profiler attached to processes on one host: perf to one or more (both workers of a host share one),
    async-profiler and py-spy to one each."""

    shell: Shell
    profiler: str
    pids: tuple[int, ...]
    output: str          # the profiler's raw output file on that host
    period_ns: int
    tools: ProfilerTools
    profiler_pid: int    # 0: runs inside the process (async-profiler)
    event: str           # what is sampled: cpu-clock or cpu-clock:u, per CPU or per task; cpu; wall-clock

    @classmethod
    def attach(cls, shell: Shell, profiler: str, pids: tuple[int, ...], output: str, period_ns: int,
               tools: ProfilerTools) -> ProfilerSession:
        if profiler not in PROFILERS:
            raise ProfilerError(f"unknown profiler {profiler!r} (known: {', '.join(PROFILERS)})")
        if not pids or (len(pids) > 1 and profiler != "perf"):
            raise ProfilerError(f"{profiler} profiles one process at a time, not {len(pids)}")
        text = shell(_variables(pids, output, period_ns, tools) + _START[profiler] + "\n").strip()
        lines = text.splitlines()
        first = lines[0].split() if lines else []
        if len(first) != 3 or first[0] != "started" or len(lines) > 1:
            raise ProfilerError(f"cannot profile process {_names(pids)} with {profiler}: {text or 'no output'}")
        return cls(shell, profiler, pids, output, period_ns, tools, int(first[1]), first[2])

    def stop(self) -> dict[int, Profile]:
        """Each process's stacks; a process that left no sample has an empty profile."""
        script = (_variables(self.pids, self.output, self.period_ns, self.tools) + f"SPID={self.profiler_pid}\n"
                  + _STOP[self.profiler])
        sections = _sections(self.shell(script))
        if "error" in sections or "folded" not in sections:
            why = sections.get("error", "").strip() or "no output"
            raise ProfilerError(f"{self.profiler} of process {_names(self.pids)} left no stacks: {why[:300]}")
        version = sections.get("version", "").strip().splitlines()
        by_pid: dict[int, list[str]] = {pid: [] for pid in self.pids}
        for line in sections["folded"].splitlines():
            pid, tab, rest = line.partition("\t")
            if self.profiler != "perf":
                by_pid[self.pids[0]].append(line)
            elif tab and pid.strip().isdigit() and int(pid) in by_pid:
                by_pid[int(pid)].append(rest)
        return {pid: Profile(parse_folded("\n".join(lines)), self.period_ns, self.profiler,
                             version[0] if version else self.profiler, self.event)
                for pid, lines in by_pid.items()}


def _names(pids: tuple[int, ...]) -> str:
    return " and ".join(str(p) for p in pids)


def _variables(pids: tuple[int, ...], output: str, period_ns: int, tools: ProfilerTools) -> str:
    rate = max(1, round(1e9 / period_ns))
    return (f"PID={int(pids[0])}; PIDS='{' '.join(str(int(p)) for p in pids)}'; OUT={shlex.quote(output)}; "
            f"PERIOD={int(period_ns)}; RATE={rate}; TIMEOUT={ATTACH_TIMEOUT_S}; "
            f"LIB={shlex.quote(tools.async_profiler_lib)}; PYSPY={shlex.quote(tools.py_spy)}\n")


_START = {"perf": _PERF_START, "async-profiler": _ASYNC_START, "py-spy": _PYSPY_START}
_STOP = {"perf": _PERF_STOP, "async-profiler": _ASYNC_STOP, "py-spy": _PYSPY_STOP}


def _sections(text: str) -> dict[str, str]:
    """`@name` headers and the text under them."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("@") and line[1:].isalpha():
            current = out.setdefault(line[1:], [])
        elif current is not None:
            current.append(line)
    return {k: "\n".join(v) for k, v in out.items()}
