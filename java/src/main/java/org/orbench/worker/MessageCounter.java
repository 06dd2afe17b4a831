package org.orbench.worker;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The server's counters since the last reset, and the barrier behind {@code sync}. Counting is on every
 * request's path, from several dispatch threads at once: it is two atomic adds, and takes the lock only
 * while someone waits in {@link #await}.
 */
public final class MessageCounter {
  private final AtomicLong messages = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicInteger waiters = new AtomicInteger();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  // A server with several objects (--objects K): per object, called since the last reset; null: not tracked.
  private volatile AtomicIntegerArray called;
  private final AtomicLong objectsCalled = new AtomicLong();

  /** Counts one payload-carrying message of {@code payloadBytes} bytes. */
  public void count(long payloadBytes) {
    // Bytes first: once `messages` reaches a waiter's target, the bytes of those messages are in.
    bytes.addAndGet(payloadBytes);
    messages.incrementAndGet();
    // The waiter registers in `waiters` before it reads `messages`, and we read `waiters` after writing
    // `messages`: either it sees our message or we see it waiting. It holds the lock from its check until
    // it sleeps, so the signal cannot fall between the two.
    if (waiters.get() > 0) {
      lock.lock();
      try {
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * The same for a request to object {@code object} of a server with several: also marks it called, so that
   * the stats line can say how many distinct objects were ({@code objects_called}).
   */
  public void count(long payloadBytes, int object) {
    // Marked before it is counted: once a barrier sees the message, its object is marked too.
    AtomicIntegerArray flags = called;
    if (flags.get(object) == 0 && flags.compareAndSet(object, 0, 1)) {
      objectsCalled.incrementAndGet();
    }
    count(payloadBytes);
  }

  /** Tracks {@code objects} objects (before any request): count(bytes, object) takes 0 .. objects - 1. */
  public void trackObjects(int objects) {
    called = new AtomicIntegerArray(objects);
  }

  /** How many distinct objects received a payload-carrying request since the last reset; -1: not tracked. */
  public long objectsCalled() {
    return called == null ? -1 : objectsCalled.get();
  }

  /**
   * Waits until {@code expected} messages have been counted since the last reset, or {@code timeoutMs}
   * passed. Returns whether the count was reached, with the counters at that moment.
   */
  public SyncOutcome await(long expected, long timeoutMs) throws InterruptedException {
    long remainingNs = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    lock.lock();
    waiters.incrementAndGet();
    try {
      while (messages.get() < expected && remainingNs > 0) {
        remainingNs = changed.awaitNanos(remainingNs);
      }
      return new SyncOutcome(messages.get() >= expected, snapshot());
    } finally {
      waiters.decrementAndGet();
      lock.unlock();
    }
  }

  public Counts snapshot() {
    // Messages first: a concurrent count() may add bytes that belong to a message not yet counted.
    long messageCount = messages.get();
    return new Counts(messageCount, bytes.get());
  }

  public void reset() {
    messages.set(0);
    bytes.set(0);
    AtomicIntegerArray flags = called;
    if (flags != null) {
      for (int k = 0; k < flags.length(); k++) {
        flags.lazySet(k, 0);
      }
      objectsCalled.set(0);
    }
  }
}
