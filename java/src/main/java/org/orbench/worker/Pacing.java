package org.orbench.worker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * Waiting for a call's intended send time in the fixed-rate loop: sleep-then-spin. Sleep (parkNanos) until
 * {@link #SPIN_NS} before the deadline, because spinning through a whole period would take the CPU from the
 * server (which shares it in the same-core placement) and from the other clients; then spin, because a parked
 * thread wakes tens of microseconds late on a loaded VM and that delay would sit before the send.
 */
final class Pacing {
  static final long SPIN_NS = 50_000;

  /**
   * Linux lets a park end up to the thread's timer slack late (50 us by default), so it would end after the
   * deadline rather than SPIN_NS before it (a 200 us absolute sleep woke 68-76 us late at the default slack on a
   * 2-vCPU VM, 7-13 us at 1 ns). Each pacing thread sets its own slack to 1 ns, once; elsewhere nothing happens.
   */
  private static final ThreadLocal<Boolean> PRECISE = ThreadLocal.withInitial(Pacing::preciseTimerSlack);

  private Pacing() {}

  /** The calling thread's timer slack: /proc/TID/timerslack_ns (TID from /proc/thread-self, PID/task/TID). */
  static Path threadSlack() throws IOException {
    Path self = Files.readSymbolicLink(Path.of("/proc/thread-self"));
    return Path.of("/proc", self.getFileName().toString(), "timerslack_ns");
  }

  static boolean preciseTimerSlack() {
    try {
      Files.writeString(threadSlack(), "1");
      return true;
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return false;
    }
  }

  /**
   * The most of the CPUs this JVM may run on that the spins may take. A spin of SPIN_NS before every call costs
   * the call rate times SPIN_NS: 16 client threads on one vCPU offering a third of a 64k calls/s server's
   * capacity spun the whole CPU, so the clients set the latency, not the server (cpp/common/pacing.hpp).
   */
  static final double SPIN_CPU_SHARE = 0.25;

  /**
   * The spin before a paced call when the process's calls are due every periodNs on average (all its threads
   * together): SPIN_NS, or less where that would take more than SPIN_CPU_SHARE of its CPUs.
   */
  static long spinNs(long periodNs) {
    double ceiling = SPIN_CPU_SHARE * Runtime.getRuntime().availableProcessors() * periodNs;
    return Math.max(0, Math.min(SPIN_NS, (long) ceiling));
  }

  static void waitUntil(long deadlineNs) {
    waitUntil(deadlineNs, SPIN_NS);
  }

  /** Waits until deadlineNs, a paced call's intended send time, its calls due every periodNs on average. */
  static void waitToSend(long deadlineNs, long periodNs) {
    waitUntil(deadlineNs, spinNs(periodNs));
  }

  private static void waitUntil(long deadlineNs, long spinNs) {
    PRECISE.get();
    long left = deadlineNs - System.nanoTime();
    while (left > spinNs) {
      LockSupport.parkNanos(left - spinNs);
      left = deadlineNs - System.nanoTime();
    }
    while (System.nanoTime() < deadlineNs) {
      Thread.onSpinWait();
    }
  }
}
