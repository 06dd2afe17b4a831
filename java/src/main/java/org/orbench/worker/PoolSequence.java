package org.orbench.worker;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The run sequence of a client process whose calls are made by several threads (PROTOCOL.md, "Load at
 * scale"): one pool of threads x calls numbered calls that free threads claim, one schedule of intended send
 * times for the whole process when paced, the warm-up pool before it and the barriers on the sums.
 */
final class PoolSequence {
  /**
   * How long after the threads are released a paced pool's t_0 lies: every thread is awake and waiting for its
   * first call's send time by then, so no call is late for the wake-up alone.
   */
  static final long START_LEAD_NS = 1_000_000;

  private PoolSequence() {}

  /** The calls 0 .. total - 1 of one pool; a thread claims the next number when it is free to call. */
  static final class CallPool {
    final int total;
    final long[] samples;
    /** Paced: call i is due at t0Ns + dueOffsetNs[i]; null for a closed loop. */
    final long[] dueOffsetNs;
    final long periodNs;
    long t0Ns; // set before the threads are released (the latch orders it before their reads)
    private final AtomicLong next = new AtomicLong();

    CallPool(long[] samples, long[] dueOffsetNs, long periodNs) {
      this.total = samples.length;
      this.samples = samples;
      this.dueOffsetNs = dueOffsetNs;
      this.periodNs = periodNs;
    }

    /** The next call number; total or more when the pool is empty. */
    long claim() {
      return next.getAndIncrement();
    }

    /** After a failure: every thread stops at its next claim. */
    void drain() {
      next.set(total);
    }
  }

  /** What one thread did in a pool run; times on the process's System.nanoTime (CLOCK_MONOTONIC). */
  static final class Tally {
    long calls;
    long firstBeforeNs = Long.MAX_VALUE;
    long lastBeforeNs = Long.MIN_VALUE;
    long lastAfterNs = Long.MIN_VALUE;
    long deadlineMisses;
  }

  static JsonObject run(BenchClient client, RunSpec spec, LoadSpec load, long seed) throws Exception {
    int threads = load.threads();
    boolean oneway = spec.mode() == Mode.ONEWAY;
    boolean shared = load.shared();
    int total = LoadSpec.numberedCalls(threads, spec.calls());
    int warmupTotal = LoadSpec.numberedCalls(threads, spec.warmup());
    Invocation[] invocations = client.prepare(spec, threads, load.objects(), load.objectsOfCalls(spec, seed));
    // Allocated and touched before timing, as the one-thread run's samples are.
    long[] samples = new long[total];
    long[] dueOffsetNs = null;
    if (load.rateHz() > 0) {
      // One schedule for the whole process, drawn now: call i is due at t_0 + dueOffsetNs[i].
      dueOffsetNs = new long[total];
      ArrivalSchedule schedule = load.schedule(seed);
      schedule.startAt(0);
      for (int i = 0; i < total; i++) {
        dueOffsetNs[i] = schedule.next();
      }
    }

    // A process alone resets, warms up, waits for its warm-up calls and resets again; a process of a group
    // never resets, and its barriers wait for the group's sums.
    if (!shared) {
      client.resetCounters();
    }
    JsonObject warmupBarrier = null;
    if (warmupTotal > 0) {
      warmUp(invocations, warmupTotal, load);
      if (!shared) {
        long waitStartNs = System.nanoTime();
        SyncOutcome outcome = client.sync(warmupTotal, spec.syncTimeoutMs());
        warmupBarrier = RunSequence.barrier(outcome, System.nanoTime() - waitStartNs);
        if (!outcome.complete()) {
          System.err.printf("orbench: warm-up sync incomplete: %d of %d messages%n",
              outcome.received().messages(), warmupTotal);
        }
      }
    }
    JsonObject startBarrier = null;
    if (shared) {
      long expected = load.clients() * warmupTotal;
      long waitStartNs = System.nanoTime();
      SyncOutcome outcome = client.sync(expected, spec.syncTimeoutMs());
      startBarrier = RunSequence.barrier(outcome, System.nanoTime() - waitStartNs);
      if (!outcome.complete()) {
        System.err.printf("orbench: start barrier incomplete: %d of %d warm-up messages%n",
            outcome.received().messages(), expected);
      }
    } else {
      client.resetCounters();
    }

    CallPool pool = new CallPool(samples, dueOffsetNs, dueOffsetNs == null ? 0 : (long) load.periodNs());
    HeapCounters.Snapshot heapBefore = HeapCounters.now();
    Tally[] tallies = runPool(invocations, pool);
    HeapCounters.Snapshot heapAfter = HeapCounters.now();

    long startNs = Long.MAX_VALUE;
    long endNs = Long.MIN_VALUE;
    long lastSendNs = Long.MIN_VALUE;
    long misses = 0;
    JsonArray threadCalls = new JsonArray();
    for (Tally tally : tallies) {
      threadCalls.add(tally.calls);
      if (tally.calls == 0) {
        continue;
      }
      startNs = Math.min(startNs, tally.firstBeforeNs);
      endNs = Math.max(endNs, tally.lastAfterNs);
      lastSendNs = Math.max(lastSendNs, tally.lastBeforeNs);
      misses += tally.deadlineMisses;
    }
    long firstSendNs = startNs;
    if (dueOffsetNs != null) {
      startNs = pool.t0Ns; // paced: elapsed_ns starts at t_0
    }

    // The closing barrier, in every mode: it proves the count (the threads' calls may reach the server's
    // dispatch threads in any order); for a group, the group's.
    long expected = shared ? load.clients() * ((long) warmupTotal + total) : total;
    long syncStartNs = System.nanoTime();
    SyncOutcome outcome = client.sync(expected, spec.syncTimeoutMs());
    long syncEndNs = System.nanoTime();
    if (oneway) {
      endNs = syncEndNs;
    }
    Counts received = client.counters();
    try {
      SamplesFile.write(spec.samplesFile(), samples);
    } catch (IOException e) {
      throw new WorkerException(
          ErrorKind.INTERNAL, "cannot write samples file " + spec.samplesFile() + ": " + e, e);
    }

    JsonObject answer = new JsonObject();
    answer.addProperty("calls", total);
    answer.addProperty("elapsed_ns", endNs - startNs);
    answer.add("received", Json.counts(received));
    answer.add("sync", RunSequence.barrier(outcome, syncEndNs - syncStartNs));
    if (warmupBarrier != null) {
      answer.add("warmup_sync", warmupBarrier);
    }
    JsonObject memory = HeapCounters.between(heapBefore, heapAfter);
    memory.remove("thread_allocated_bytes"); // the measuring thread made none of the calls
    answer.add("memory", memory);
    answer.addProperty("threads", threads);
    answer.add("thread_calls", threadCalls);
    if (shared) {
      answer.addProperty("clients", load.clients());
      answer.add("start_barrier", startBarrier);
    }
    answer.addProperty("start_ns", startNs);
    answer.addProperty("end_ns", endNs);
    if (load.rateHz() > 0) {
      RunSequence.addRate(answer, load, misses, total, lastSendNs - firstSendNs);
    }
    RunSequence.addScale(answer, load, seed);
    return answer;
  }

  /**
   * The warm-up pool, through the loops the timed calls will run (see {@link RunSequence#warmUp}): closed
   * loop, and at a rate its last calls, up to {@link RunSequence#PACED_WARMUP_NS} of them, through the paced
   * loop at the rate. Warm-up call i goes to the object of timed call i.
   */
  static void warmUp(Invocation[] invocations, int calls, LoadSpec load) throws Exception {
    int paced = load.rateHz() > 0
        ? (int) Math.min(calls, Math.ceil(RunSequence.PACED_WARMUP_NS / load.periodNs())) : 0;
    if (calls - paced > 0) {
      runPool(invocations, new CallPool(new long[calls - paced], null, 0));
    }
    if (paced > 0) {
      long[] due = new long[paced];
      ArrivalSchedule schedule = ArrivalSchedule.fixed(load.rateHz());
      schedule.startAt(0);
      for (int i = 0; i < paced; i++) {
        due[i] = schedule.next();
      }
      runPool(invocations, new CallPool(new long[paced], due, (long) load.periodNs()), calls - paced);
    }
  }

  static Tally[] runPool(Invocation[] invocations, CallPool pool) throws Exception {
    return runPool(invocations, pool, 0);
  }

  /**
   * Runs {@code pool} on one thread per invocation, released together once all have started (a paced pool's
   * t_0 is set then); call i of the pool is call number {@code first + i} of the invocations. The first
   * failure of any thread drains the pool and is thrown once all have stopped.
   */
  static Tally[] runPool(Invocation[] invocations, CallPool pool, long first) throws Exception {
    int threads = invocations.length;
    Tally[] tallies = new Tally[threads];
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch started = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    Thread[] crew = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      Invocation invocation = invocations[t];
      Tally tally = tallies[t] = new Tally();
      crew[t] = new Thread(() -> {
        started.countDown();
        try {
          go.await();
          while (pool.dueOffsetNs == null ? closedChunk(pool, invocation, tally, first)
              : pacedChunk(pool, invocation, tally, first)) {
            // one chunk of calls per invocation of the loop method, so HotSpot compiles it (RunSequence)
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
          pool.drain();
        }
      }, "orbench-call-" + t);
      crew[t].setDaemon(true); // a call hung in the middleware does not keep the worker from exiting
    }
    int startedThreads = 0;
    try {
      for (Thread thread : crew) {
        thread.start();
        startedThreads++;
      }
      started.await();
      if (pool.dueOffsetNs != null) {
        pool.t0Ns = System.nanoTime() + START_LEAD_NS;
      }
    } catch (Throwable e) {
      // A thread that could not be started: the others make no call, and the failure is the answer.
      failure.compareAndSet(null, e);
      pool.drain();
    } finally {
      go.countDown();
    }
    for (int t = 0; t < startedThreads; t++) {
      crew[t].join();
    }
    Throwable failed = failure.get();
    if (failed instanceof Exception e) {
      throw e;
    }
    if (failed instanceof Error e) {
      throw e;
    }
    return tallies;
  }

  /** Up to {@link RunSequence#WARMUP_CHUNK_CALLS} closed-loop calls of the pool; false once it is empty. */
  static boolean closedChunk(CallPool pool, Invocation invocation, Tally tally, long first) throws Exception {
    for (int n = 0; n < RunSequence.WARMUP_CHUNK_CALLS; n++) {
      long i = pool.claim();
      if (i >= pool.total) {
        return false;
      }
      invocation.startAt(first + i);
      long beforeNs = System.nanoTime();
      invocation.call();
      long afterNs = System.nanoTime();
      pool.samples[(int) i] = afterNs - beforeNs;
      record(tally, beforeNs, afterNs);
      invocation.check();
    }
    return true;
  }

  /**
   * Up to {@link RunSequence#WARMUP_CHUNK_CALLS} paced calls of the pool: each waits for its call's intended
   * send time t_i ({@link Pacing}); its sample is completion - t_i. False once the pool is empty.
   */
  static boolean pacedChunk(CallPool pool, Invocation invocation, Tally tally, long first) throws Exception {
    for (int n = 0; n < RunSequence.WARMUP_CHUNK_CALLS; n++) {
      long i = pool.claim();
      if (i >= pool.total) {
        return false;
      }
      long intendedNs = pool.t0Ns + pool.dueOffsetNs[(int) i];
      Pacing.waitToSend(intendedNs, pool.periodNs);
      invocation.startAt(first + i);
      long beforeNs = System.nanoTime();
      invocation.call();
      long afterNs = System.nanoTime();
      long sample = afterNs - intendedNs;
      pool.samples[(int) i] = sample;
      record(tally, beforeNs, afterNs);
      if (sample > pool.periodNs) {
        tally.deadlineMisses++;
      }
      invocation.check();
    }
    return true;
  }

  private static void record(Tally tally, long beforeNs, long afterNs) {
    tally.calls++;
    if (beforeNs < tally.firstBeforeNs) {
      tally.firstBeforeNs = beforeNs;
    }
    tally.lastBeforeNs = beforeNs;
    tally.lastAfterNs = afterNs;
  }
}
