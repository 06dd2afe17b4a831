package org.orbench.ice;

import com.zeroc.Ice.Current;
import com.zeroc.Ice.Identity;
import com.zeroc.Ice.Util;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.orbench.ice.generated.orbench.Bench;
import org.orbench.ice.generated.orbench.Counters;
import org.orbench.ice.generated.orbench.Record;
import org.orbench.ice.generated.orbench.SyncResult;
import org.orbench.worker.Counts;
import org.orbench.worker.MessageCounter;
import org.orbench.worker.PayloadType;
import org.orbench.worker.SyncOutcome;

/**
 * The Ice servant: counts what arrives, returns echoes, and is the sync barrier. sync() is dispatched
 * asynchronously (["amd"] in the generated Slice): its wait runs on a thread of its own, so it never holds the
 * one thread of Ice's server pool that dispatches every connection's requests.
 */
final class BenchServant implements Bench {
  private final MessageCounter counter;
  private final int index;
  private final int objects;
  private final Runnable shutdown;
  private final ExecutorService waiters = Executors.newCachedThreadPool(task -> {
    Thread thread = new Thread(task, "orbench-sync");
    thread.setDaemon(true);
    return thread;
  });

  /**
   * Object {@code index} of the server's {@code objects} (each answers references() for all of them).
   * {@code shutdown} must not block: it runs inside the shutdown() request, before its reply.
   */
  BenchServant(MessageCounter counter, int index, int objects, Runnable shutdown) {
    this.counter = counter;
    this.index = index;
    this.objects = objects;
    this.shutdown = shutdown;
  }

  /** Object k's identity: "bench", then "bench-1", "bench-2", ... (PROTOCOL.md, "--objects K"). */
  static Identity identity(int k) {
    return Util.stringToIdentity(k == 0 ? "bench" : "bench-" + k);
  }

  /** Counts one payload-carrying request to this object. */
  private void count(long payloadBytes) {
    counter.count(payloadBytes, index);
  }

  private static long bytes(Record[] data) {
    return (long) PayloadType.RECORD_BYTES * data.length;
  }

  /** A string counts its characters (PROTOCOL.md, "Payload types"). */
  private static long bytes(String[] data) {
    long total = 0;
    for (String s : data) {
      total += s.length();
    }
    return total;
  }

  @Override
  public void push(byte[] data, Current current) {
    count(data.length);
  }

  @Override
  public void push_records(Record[] data, Current current) {
    count(bytes(data));
  }

  @Override
  public void push_longs(int[] data, Current current) {
    count(4L * data.length);
  }

  @Override
  public void push_doubles(double[] data, Current current) {
    count(8L * data.length);
  }

  @Override
  public void push_strings(String[] data, Current current) {
    count(bytes(data));
  }

  @Override
  public void send(byte[] data, Current current) {
    count(data.length);
  }

  @Override
  public void send_records(Record[] data, Current current) {
    count(bytes(data));
  }

  @Override
  public void send_longs(int[] data, Current current) {
    count(4L * data.length);
  }

  @Override
  public void send_doubles(double[] data, Current current) {
    count(8L * data.length);
  }

  @Override
  public void send_strings(String[] data, Current current) {
    count(bytes(data));
  }

  @Override
  public byte[] echo_octets(byte[] data, Current current) {
    count(data.length);
    return data;
  }

  @Override
  public Record[] echo_records(Record[] data, Current current) {
    count(bytes(data));
    return data;
  }

  @Override
  public int[] echo_longs(int[] data, Current current) {
    count(4L * data.length);
    return data;
  }

  @Override
  public double[] echo_doubles(double[] data, Current current) {
    count(8L * data.length);
    return data;
  }

  @Override
  public String[] echo_strings(String[] data, Current current) {
    count(bytes(data));
    return data;
  }

  @Override
  public CompletionStage<SyncResult> syncAsync(long expected, long timeout_ms, Current current) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        SyncOutcome outcome = counter.await(expected, timeout_ms);
        return new SyncResult(outcome.complete(), counters(outcome.received()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("sync interrupted: the server is stopping", e);
      }
    }, waiters);
  }

  @Override
  public Counters counters(Current current) {
    return counters(counter.snapshot());
  }

  @Override
  public void reset_counters(Current current) {
    counter.reset();
  }

  /** The stringified proxies of objects first .. first + count - 1 (fewer past the last), on this adapter. */
  @Override
  public String[] references(long first, long count, Current current) {
    long from = Math.max(first, 0);
    long end = Math.min(objects, from + Math.max(count, 0));
    String[] out = new String[(int) Math.max(end - from, 0)];
    for (int i = 0; i < out.length; i++) {
      out[i] = current.adapter.getCommunicator().proxyToString(current.adapter.createProxy(identity((int) from + i)));
    }
    return out;
  }

  @Override
  public void shutdown(Current current) {
    shutdown.run();
  }

  private static Counters counters(Counts counts) {
    return new Counters(counts.messages(), counts.bytes());
  }
}
