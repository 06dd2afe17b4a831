"""The anatomy of a call: what each worker process costs the machine per call, from the kernel's own accounting.

Collected around every trial, where each worker runs (locally, or on its host over SSH):
  procfs.py    a process's CPU time (user, system), context switches and read/write calls (/proc/PID)
  syscount.py  its send/recv calls, which /proc does not count: a counter preloaded into every worker
  tcpinfo.py   the byte and segment counters of a process's TCP sockets (TCP_INFO through `ss`)
  netstat.py   the network namespace's TCP events: retransmits, timeouts, zero windows, drops
  snapshot.py  one shell script that reads all of the above on a host at once, and its parser
  delta.py     two snapshots and a run answer -> per-call fields of a trial
  strace.py    the opt-in anatomy mode: `strace -c -f` attached to a worker for a trial (full syscall mix)
"""
