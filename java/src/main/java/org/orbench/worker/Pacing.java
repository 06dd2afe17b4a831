package org.orbench.worker;

import java.util.concurrent.locks.LockSupport;

/**
 * Waiting for a call's intended send time in the fixed-rate loop: sleep-then-spin. Sleep (parkNanos) until
 * {@link #SPIN_NS} before the deadline, because spinning through a whole period would take the CPU from the
 * server (which shares it in the same-core placement) and from the other clients; then spin, because a parked
 * thread wakes tens of microseconds late on a loaded VM and that delay would sit before the send.
 */
final class Pacing {
  static final long SPIN_NS = 50_000;

  private Pacing() {}

  static void waitUntil(long deadlineNs) {
    long left = deadlineNs - System.nanoTime();
    while (left > SPIN_NS) {
      LockSupport.parkNanos(left - SPIN_NS);
      left = deadlineNs - System.nanoTime();
    }
    while (System.nanoTime() < deadlineNs) {
      Thread.onSpinWait();
    }
  }
}
