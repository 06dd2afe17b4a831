package org.orbench.worker;

import com.google.gson.JsonObject;
import java.io.IOException;

/**
 * The {@code run} sequence of PROTOCOL.md: reset; warm-up calls (oneway: then sync); reset; timed calls
 * (oneway: then sync); counters; write the samples file. Returns the answer's fields.
 */
public final class RunSequence {
  /**
   * Warm-up calls go through the loop in invocations of this many calls: HotSpot compiles a method once it
   * has been invoked often enough, and one invocation of a loop of a few thousand calls is not (the paced
   * loop then stayed interpreted, inside the samples, for a whole campaign).
   */
  static final int WARMUP_CHUNK_CALLS = 10;

  /** The most time a fixed-rate trial's warm-up spends in the paced loop: 1 s (1000 calls at 1 kHz). */
  static final double PACED_WARMUP_NS = 1e9;

  private RunSequence() {}

  public static JsonObject run(BenchClient client, RunSpec spec) throws Exception {
    return run(client, spec, LoadSpec.CLOSED_LOOP);
  }

  /**
   * The same with the load fields (PROTOCOL.md, "Load"). Several clients share the server's counters: the
   * harness reset them once before it sent {@code run} to all of them, no client resets them again (that
   * would wipe the others' counts), and the barriers wait for the group's sums.
   */
  public static JsonObject run(BenchClient client, RunSpec spec, LoadSpec load) throws Exception {
    long seed = load.effectiveSeed();
    if (load.threads() > 1) {
      return PoolSequence.run(client, spec, load, seed);
    }
    boolean oneway = spec.mode() == Mode.ONEWAY;
    boolean shared = load.shared();
    // Several objects: call i goes to object order[i], counted from the warm-up's first call and again from the
    // first timed call (startAt below).
    Invocation invocation = load.objects() > 1
        ? client.prepare(spec, 1, load.objects(), load.objectsOfCalls(spec, seed))[0]
        : client.prepare(spec);
    // Allocated (and zeroed, so touched) before timing: no page fault lands inside a sample.
    long[] samples = new long[spec.calls()];

    Prelude prelude = beforeTimedCalls(client, invocation, spec, load);
    JsonObject warmupBarrier = prelude.warmupSync();
    JsonObject startBarrier = prelude.startBarrier();
    invocation.startAt(0);

    ArrivalSchedule schedule = load.schedule(seed);
    HeapCounters.Snapshot heapBefore = HeapCounters.now();
    TimedSpan span = schedule != null ? pacedLoop(invocation, samples, schedule) : timedLoop(invocation, samples);
    HeapCounters.Snapshot heapAfter = HeapCounters.now();
    long endNs = span.lastAfterNs();
    JsonObject sync = null;
    if (oneway || shared) {
      // Shared: the closing barrier waits for every message of every client (warm-up included), so each
      // client's "received" is the group's total and loss is the group's.
      long expected = shared ? load.clients() * ((long) spec.warmup() + spec.calls()) : spec.calls();
      long syncStartNs = System.nanoTime();
      SyncOutcome outcome = client.sync(expected, spec.syncTimeoutMs());
      long syncEndNs = System.nanoTime();
      if (oneway) {
        endNs = syncEndNs;
      }
      sync = barrier(outcome, syncEndNs - syncStartNs);
    }
    Counts received = client.counters();

    writeSamples(spec, samples);

    JsonObject answer = new JsonObject();
    answer.addProperty("calls", spec.calls());
    answer.addProperty("elapsed_ns", endNs - span.firstBeforeNs());
    answer.add("received", Json.counts(received));
    if (sync != null) {
      answer.add("sync", sync);
    }
    if (warmupBarrier != null) {
      answer.add("warmup_sync", warmupBarrier);
    }
    answer.add("memory", HeapCounters.between(heapBefore, heapAfter));
    if (shared) {
      answer.addProperty("clients", load.clients());
      answer.add("start_barrier", startBarrier);
      // System.nanoTime is CLOCK_MONOTONIC on Linux, one clock for every process of the host (C++ workers
      // too): the harness takes the group's span from the earliest start to the latest end.
      answer.addProperty("start_ns", span.firstBeforeNs());
      answer.addProperty("end_ns", endNs);
    }
    if (load.rateHz() > 0) {
      addRate(answer, load, span.deadlineMisses(), spec.calls(), span.lastSendNs() - span.firstSendNs());
    }
    addScale(answer, load, seed);
    return answer;
  }

  /**
   * A run with turns (PROTOCOL.md, "Turns"): the run's timed calls in the turns' pieces, each turn waiting for
   * its byte on the {@code wait} pipe (the first at once when {@code first}) and ending with a byte to its
   * {@code give} pipe. The first turn makes the run's prelude (resets, warm-up, reset); every later one makes
   * {@code rewarm} untimed calls first, through the warm-up's path. A closed loop on one thread, twoway or echo
   * (the command loop refuses the rest): no barrier, no pacing. The pipes are closed however the run ends.
   */
  static JsonObject runTurns(BenchClient client, RunSpec spec, TurnsSpec turns) throws Exception {
    // Opened before prepare, so a pipe that is missing fails the run before any call is made.
    try (TurnPipes pipes = TurnPipes.open(turns)) {
      Invocation invocation = client.prepare(spec);
      // Allocated (and zeroed, so touched) before timing: no page fault lands inside a sample.
      long[] samples = new long[spec.calls()];
      int[] calls = turns.calls();
      long elapsedNs = 0;
      long waitedNs = 0;
      // memory sums each turn's timed calls only, as a run without turns counts its timed calls: the waits
      // and the rewarms between turns are left out.
      HeapCounters.Snapshot heap = HeapCounters.Snapshot.ZERO;
      int offset = 0;
      boolean oneway = spec.mode() == Mode.ONEWAY;
      long expected = 0; // what the server should have counted since the warm-up's reset
      boolean synced = true;
      long syncWaitNs = 0;
      JsonObject warmupBarrier = null;
      for (int turn = 0; turn < calls.length; turn++) {
        if (turn > 0 || !turns.first()) {
          long waited = pipes.awaitTurn();
          if (turn > 0) {
            waitedNs += waited;
          }
        }
        if (turn == 0) {
          warmupBarrier = beforeTimedCalls(client, invocation, spec, LoadSpec.CLOSED_LOOP).warmupSync();
          invocation.startAt(0);
        } else {
          warmUp(invocation, turns.rewarm(), LoadSpec.CLOSED_LOOP);
          expected += turns.rewarm();
        }
        HeapCounters.Snapshot heapBefore = HeapCounters.now();
        TimedSpan span = timedLoop(invocation, samples, offset, offset + calls[turn]);
        HeapCounters.Snapshot heapAfter = HeapCounters.now();
        // Read before the give, not after: this client's last reads must not overlap the next turn's calls.
        heap = heap.plusSpan(heapBefore, heapAfter);
        expected += calls[turn];
        long endNs = span.lastAfterNs();
        if (oneway) {
          // No flood hands its backlog to the next client's turn: the turn ends once the server has it all.
          SyncOutcome outcome = client.sync(expected, spec.syncTimeoutMs());
          endNs = System.nanoTime();
          synced &= outcome.complete();
          syncWaitNs += endNs - span.lastAfterNs();
        }
        elapsedNs += endNs - span.firstBeforeNs();
        offset += calls[turn];
        pipes.give(turn);
      }
      if (!turns.givePaths().get(calls.length - 1).isEmpty()) {
        // The end of the trial: counters, samples file and answer must not run beside another client's turn.
        pipes.awaitTurn();
      }
      // The server counted every later turn's rewarm calls too; received is the timed calls', as in any run.
      Counts counted = client.counters();
      long rewarmed = (long) turns.rewarm() * (calls.length - 1);
      long rewarmedBytes = rewarmed * spec.payloadType().countedBytes(spec.payloadBytes());
      Counts received = new Counts(Math.max(0, counted.messages() - rewarmed),
          Math.max(0, counted.bytes() - rewarmedBytes));

      writeSamples(spec, samples);

      JsonObject turnsAnswer = new JsonObject();
      turnsAnswer.addProperty("count", calls.length);
      turnsAnswer.addProperty("waited_ns", waitedNs);
      JsonObject answer = new JsonObject();
      answer.addProperty("calls", spec.calls());
      answer.addProperty("elapsed_ns", elapsedNs);
      answer.add("received", Json.counts(received));
      answer.add("memory", HeapCounters.between(HeapCounters.Snapshot.ZERO, heap));
      answer.add("turns", turnsAnswer);
      if (oneway) {
        answer.add("sync", barrier(synced, syncWaitNs));
      }
      if (warmupBarrier != null) {
        answer.add("warmup_sync", warmupBarrier);
      }
      return answer;
    }
  }

  /** A paced run's answer fields; {@code sending}: from the first real send to the last. */
  static void addRate(JsonObject answer, LoadSpec load, long deadlineMisses, long calls, long sending) {
    answer.addProperty("rate_hz", load.rateHz());
    answer.addProperty("arrivals", load.arrivals().wireName());
    answer.addProperty("deadline_misses", deadlineMisses);
    if (calls > 1 && sending > 0) {
      answer.addProperty("achieved_rate_hz", (calls - 1) * 1e9 / sending);
    } else {
      answer.add("achieved_rate_hz", com.google.gson.JsonNull.INSTANCE);
    }
  }

  /** The answer's {@code objects}, {@code object_order} and, when anything was drawn from it, {@code seed}. */
  static void addScale(JsonObject answer, LoadSpec load, long seed) {
    if (load.objects() > 1) {
      answer.addProperty("objects", load.objects());
      answer.addProperty("object_order", load.objectOrder().wireName());
    }
    if (load.arrivals() == Arrivals.POISSON || (load.objects() > 1 && load.objectOrder() == ObjectOrder.RANDOM)) {
      answer.addProperty("seed", seed);
    }
  }

  /** The outcomes of the barriers before the timed calls: the oneway warm-up's, a group's start barrier. */
  record Prelude(JsonObject warmupSync, JsonObject startBarrier) {}

  /**
   * The part of the run sequence before the timed calls, after prepare: the resets, the warm-up calls and
   * their barrier, or for a group of clients the start barrier. Shared by runs of calls and soaks.
   */
  static Prelude beforeTimedCalls(BenchClient client, Invocation invocation, RunSpec spec, LoadSpec load)
      throws Exception {
    boolean oneway = spec.mode() == Mode.ONEWAY;
    boolean shared = load.shared();
    if (!shared) {
      client.resetCounters();
    }
    JsonObject warmupBarrier = null;
    if (spec.warmup() > 0) {
      warmUp(invocation, spec.warmup(), load);
      if (oneway && !shared) {
        // Warm-up oneways may still be queued at the server; without this barrier they would be counted
        // after the next reset. One that times out is in the answer (warmup_sync): late warm-up messages
        // would then be counted as timed ones and could satisfy the closing barrier early, hiding loss.
        long waitStartNs = System.nanoTime();
        SyncOutcome warmupSync = client.sync(spec.warmup(), spec.syncTimeoutMs());
        warmupBarrier = barrier(warmupSync, System.nanoTime() - waitStartNs);
        if (!warmupSync.complete()) {
          System.err.printf(
              "orbench: warm-up sync incomplete: %d of %d messages%n",
              warmupSync.received().messages(), spec.warmup());
        }
      }
    }
    JsonObject startBarrier = null;
    if (shared) {
      // The start barrier: every client of the group has made its warm-up calls and the server has counted
      // them, so the timed calls of all clients overlap. In every mode: every mode's calls are counted.
      long expected = load.clients() * spec.warmup();
      long waitStartNs = System.nanoTime();
      SyncOutcome outcome = client.sync(expected, spec.syncTimeoutMs());
      startBarrier = barrier(outcome, System.nanoTime() - waitStartNs);
      if (!outcome.complete()) {
        System.err.printf(
            "orbench: start barrier incomplete: %d of %d warm-up messages%n",
            outcome.received().messages(), expected);
      }
    } else {
      client.resetCounters();
    }
    return new Prelude(warmupBarrier, startBarrier);
  }

  /**
   * The warm-up calls, through the loop the timed calls will run, so the JIT has compiled that loop (not only
   * the call) by the time samples count; their samples are dropped. Closed loop: every call through the timed
   * loop. At a fixed rate the paced loop's waits and late-call path are code the closed loop never runs: the
   * last calls, up to {@link #PACED_WARMUP_NS} of them at the trial's rate, go through the paced loop, two per
   * invocation (the second waits one period), the others closed loop before them. The total stays
   * {@code calls}, which the barriers count on.
   */
  static void warmUp(Invocation invocation, int calls, LoadSpec load) throws Exception {
    int paced = load.rateHz() > 0 ? (int) Math.min(calls, Math.ceil(PACED_WARMUP_NS / load.periodNs())) : 0;
    inChunks(calls - paced, WARMUP_CHUNK_CALLS, chunk -> timedLoop(invocation, chunk));
    inChunks(paced, 2, chunk -> pacedLoop(invocation, chunk, ArrivalSchedule.fixed(load.rateHz())));
  }

  private interface Loop {
    void run(long[] samples) throws Exception;
  }

  /** {@code calls} calls through {@code loop}, {@code chunk} calls per invocation. */
  private static void inChunks(int calls, int chunk, Loop loop) throws Exception {
    long[] samples = new long[chunk];
    for (int done = 0; done < calls; done += samples.length) {
      if (calls - done < samples.length) {
        samples = new long[calls - done];
      }
      loop.run(samples);
    }
  }

  static JsonObject barrier(SyncOutcome outcome, long waitNs) {
    return barrier(outcome.complete(), waitNs);
  }

  /** A barrier's answer field; a run in turns gives one for all its turns' barriers. */
  static JsonObject barrier(boolean complete, long waitNs) {
    JsonObject out = new JsonObject();
    out.addProperty("complete", complete);
    out.addProperty("wait_ns", waitNs);
    return out;
  }

  /**
   * First clock read of the first call and last clock read of the last call. At a fixed rate the first is
   * the first intended send time, and the misses and the real first and last send times are filled in.
   */
  record TimedSpan(
      long firstBeforeNs, long lastAfterNs, long deadlineMisses, long firstSendNs, long lastSendNs) {
    TimedSpan(long firstBeforeNs, long lastAfterNs) {
      this(firstBeforeNs, lastAfterNs, 0, 0, 0);
    }
  }

  /**
   * One sample per call: the clock read just before {@link Invocation#call()} and just after it returns.
   * The reply check runs outside that window. The call is virtual (a few ns, the same for every Java
   * target, so it cancels in ORB-added latency). A {@link BatchInvocation} times its own calls.
   */
  static TimedSpan timedLoop(Invocation invocation, long[] samples) throws Exception {
    return timedLoop(invocation, samples, 0, samples.length);
  }

  /**
   * The same into {@code samples[from, to)}: a turn's calls at their place among the run's (one loop for
   * every run, so the warm-up's chunks compile the code the timed calls of a turn run too).
   */
  static TimedSpan timedLoop(Invocation invocation, long[] samples, int from, int to) throws Exception {
    if (invocation instanceof BatchInvocation batch) {
      long[] own = from == 0 && to == samples.length ? samples : new long[to - from];
      long[] span = batch.runAll(own);
      if (own != samples) {
        System.arraycopy(own, 0, samples, from, own.length);
      }
      return new TimedSpan(span[0], span[1]);
    }
    long firstBeforeNs = 0;
    long afterNs = 0;
    for (int i = from; i < to; i++) {
      long beforeNs = System.nanoTime();
      invocation.call();
      afterNs = System.nanoTime();
      samples[i] = afterNs - beforeNs;
      if (i == from) {
        firstBeforeNs = beforeNs;
      }
      invocation.check();
    }
    return new TimedSpan(firstBeforeNs, afterNs);
  }

  /**
   * The paced loop: call i has the intended send time t_i ({@link ArrivalSchedule}); it waits until then
   * when early ({@link Pacing}) and goes at once when late; its sample is completion - t_i, so a stall shows
   * in every call that should have gone out during it (no coordinated omission). A call is a deadline miss
   * when its sample is above the mean period (at a fixed rate: it completes after t_{i+1}).
   */
  static TimedSpan pacedLoop(Invocation invocation, long[] samples, ArrivalSchedule schedule) throws Exception {
    long t0 = schedule.peek();
    long period = (long) schedule.periodNs();
    long misses = 0;
    long firstSendNs = 0;
    long sendNs = 0;
    long afterNs = 0;
    for (int i = 0; i < samples.length; i++) {
      long intendedNs = schedule.next();
      Pacing.waitToSend(intendedNs, period);
      sendNs = System.nanoTime();
      invocation.call();
      afterNs = System.nanoTime();
      samples[i] = afterNs - intendedNs;
      if (samples[i] > period) {
        misses++;
      }
      if (i == 0) {
        firstSendNs = sendNs;
      }
      invocation.check();
    }
    return new TimedSpan(t0, afterNs, misses, firstSendNs, sendNs);
  }

  private static void writeSamples(RunSpec spec, long[] samples) {
    try {
      SamplesFile.write(spec.samplesFile(), samples);
    } catch (IOException e) {
      throw new WorkerException(
          ErrorKind.INTERNAL, "cannot write samples file " + spec.samplesFile() + ": " + e, e);
    }
  }
}
