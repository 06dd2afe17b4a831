package org.orbench.orb;

import orbench.BenchPOA;
import orbench.Counters;
import orbench.Record;
import orbench.SyncResult;
import org.omg.CORBA.TRANSIENT;
import org.orbench.worker.Counts;
import org.orbench.worker.MessageCounter;
import org.orbench.worker.PayloadType;
import org.orbench.worker.SyncOutcome;

/**
 * The server side of orbench.idl's Bench: counts what arrives, returns echoes, and is the sync barrier. A server
 * with several objects (--objects K) activates K of them, which share the counters and hand out each other's
 * references.
 */
final class BenchServant extends BenchPOA {
  private final MessageCounter counter;
  private final ObjectDirectory directory;
  private final int index;
  private final Runnable shutdown;

  /**
   * Object {@code index} of {@code directory}. {@code shutdown} must not block: it runs inside the shutdown()
   * request, before its reply.
   */
  BenchServant(MessageCounter counter, ObjectDirectory directory, int index, Runnable shutdown) {
    this.counter = counter;
    this.directory = directory;
    this.index = index;
    this.shutdown = shutdown;
  }

  /** Counts one payload-carrying request to this object. */
  private void count(long payloadBytes) {
    counter.count(payloadBytes, index);
  }

  @Override
  public void push(byte[] data) {
    count(data.length);
  }

  @Override
  public void push_records(Record[] data) {
    count(recordBytes(data));
  }

  @Override
  public void send(byte[] data) {
    count(data.length);
  }

  @Override
  public void send_records(Record[] data) {
    count(recordBytes(data));
  }

  @Override
  public void push_longs(int[] data) {
    count(4L * data.length);
  }

  @Override
  public void push_doubles(double[] data) {
    count(8L * data.length);
  }

  @Override
  public void push_strings(String[] data) {
    count(stringBytes(data));
  }

  @Override
  public void send_longs(int[] data) {
    count(4L * data.length);
  }

  @Override
  public void send_doubles(double[] data) {
    count(8L * data.length);
  }

  @Override
  public void send_strings(String[] data) {
    count(stringBytes(data));
  }

  @Override
  public int[] echo_longs(int[] data) {
    count(4L * data.length);
    return data;
  }

  @Override
  public double[] echo_doubles(double[] data) {
    count(8L * data.length);
    return data;
  }

  @Override
  public String[] echo_strings(String[] data) {
    count(stringBytes(data));
    return data;
  }

  @Override
  public byte[] echo_octets(byte[] data) {
    count(data.length);
    return data;
  }

  @Override
  public Record[] echo_records(Record[] data) {
    count(recordBytes(data));
    return data;
  }

  @Override
  public SyncResult sync(long expected, int timeoutMs) {
    try {
      // IDL unsigned long arrives as a Java int.
      SyncOutcome outcome = counter.await(expected, Integer.toUnsignedLong(timeoutMs));
      return new SyncResult(outcome.complete(), counters(outcome.received()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TRANSIENT("sync interrupted: the server is stopping");
    }
  }

  @Override
  public Counters counters() {
    return counters(counter.snapshot());
  }

  @Override
  public void reset_counters() {
    counter.reset();
  }

  @Override
  public String[] references(int first, int count) {
    // IDL unsigned long arrives as a Java int.
    return directory.strings(Integer.toUnsignedLong(first), Integer.toUnsignedLong(count));
  }

  @Override
  public void shutdown() {
    shutdown.run();
  }

  private static long recordBytes(Record[] data) {
    return (long) PayloadType.RECORD_BYTES * data.length;
  }

  /** A string counts its characters (PROTOCOL.md): STRING_CHARS each as the clients send them. */
  private static long stringBytes(String[] data) {
    long bytes = 0;
    for (String s : data) {
      bytes += s.length();
    }
    return bytes;
  }

  private static Counters counters(Counts counts) {
    return new Counters(counts.messages(), counts.bytes());
  }
}
