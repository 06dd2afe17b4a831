package org.orbench.orb;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import orbench.Counters;
import orbench.DoublesHolder;
import orbench.LongsHolder;
import orbench.OctetsHolder;
import orbench.Record;
import orbench.RecordsHolder;
import orbench.Refused;
import orbench.ShapesPOA;
import orbench.StringsHolder;
import orbench.SyncResult;
import org.omg.CORBA.TRANSIENT;
import org.orbench.worker.Payloads;
import org.orbench.worker.Counts;
import org.orbench.worker.MessageCounter;
import org.orbench.worker.PayloadType;
import org.orbench.worker.SyncOutcome;

/**
 * The server side of orbench.idl's Bench: counts what arrives, returns echoes, and is the sync barrier. A server
 * with several objects (--objects K) activates K of them, which share the counters and hand out each other's
 * references.
 */
final class BenchServant extends ShapesPOA {
  /** A fault a check-target test asks for (environment ORBENCH_FAULT, PROTOCOL.md); "" in every real run. */
  static final String FAULT = System.getenv().getOrDefault("ORBENCH_FAULT", "");
  private final MessageCounter counter;
  private final ObjectDirectory directory;
  private final int index;
  private final Runnable shutdown;
  // The replies of out, return and inout (elements from 1), built once per payload type and length: handed
  // to the ORB as they are, since the Java mapping lets the ORB marshal a shared array.
  private final Map<Long, Object> replies = new ConcurrentHashMap<>();

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

  // --- Shapes (PROTOCOL.md, "Invocation shapes") ---

  @SuppressWarnings("unchecked")
  private <T> T reply(PayloadType type, int count, IntFunction<T> make) {
    return (T) replies.computeIfAbsent(((long) type.ordinal() << 32) | count, key -> make.apply(count));
  }

  private byte[] octetsReply(int n) {
    return reply(PayloadType.OCTETS, n, k -> Payloads.octets(k, 1));
  }

  private Record[] recordsReply(int n) {
    return reply(PayloadType.RECORDS, n, k -> RecordPayload.build(k, 1));
  }

  private int[] longsReply(int n) {
    return reply(PayloadType.LONGS, n, k -> Payloads.longs(k, 1));
  }

  private double[] doublesReply(int n) {
    return reply(PayloadType.DOUBLES, n, k -> Payloads.doubles(k, 1));
  }

  private String[] stringsReply(int n) {
    return reply(PayloadType.STRINGS, n, k -> Payloads.strings(k, 1));
  }

  @Override
  public void out_octets(int count, OctetsHolder data) {
    data.value = octetsReply(count);
    count(count);
  }

  @Override
  public void out_records(int count, RecordsHolder data) {
    data.value = recordsReply(count);
    count(recordBytes(data.value));
  }

  @Override
  public void out_longs(int count, LongsHolder data) {
    data.value = longsReply(count);
    count(4L * count);
  }

  @Override
  public void out_doubles(int count, DoublesHolder data) {
    data.value = doublesReply(count);
    count(8L * count);
  }

  @Override
  public void out_strings(int count, StringsHolder data) {
    data.value = stringsReply(count);
    count(stringBytes(data.value));
  }

  @Override
  public byte[] return_octets(int count) {
    count(count);
    return octetsReply(count);
  }

  @Override
  public Record[] return_records(int count) {
    count((long) PayloadType.RECORD_BYTES * count);
    return recordsReply(count);
  }

  @Override
  public int[] return_longs(int count) {
    count(4L * count);
    return longsReply(count);
  }

  @Override
  public double[] return_doubles(int count) {
    count(8L * count);
    return doublesReply(count);
  }

  @Override
  public String[] return_strings(int count) {
    String[] out = stringsReply(count);
    count(stringBytes(out));
    return out;
  }

  // inout: the argument's elements replaced by the reply's (the fault inout_unchanged leaves them).
  @Override
  public void inout_octets(OctetsHolder data) {
    count(data.value.length);
    if (!FAULT.equals("inout_unchanged")) {
      data.value = octetsReply(data.value.length);
    }
  }

  @Override
  public void inout_records(RecordsHolder data) {
    count(recordBytes(data.value));
    if (!FAULT.equals("inout_unchanged")) {
      data.value = recordsReply(data.value.length);
    }
  }

  @Override
  public void inout_longs(LongsHolder data) {
    count(4L * data.value.length);
    if (!FAULT.equals("inout_unchanged")) {
      data.value = longsReply(data.value.length);
    }
  }

  @Override
  public void inout_doubles(DoublesHolder data) {
    count(8L * data.value.length);
    if (!FAULT.equals("inout_unchanged")) {
      data.value = doublesReply(data.value.length);
    }
  }

  @Override
  public void inout_strings(StringsHolder data) {
    count(stringBytes(data.value));
    if (!FAULT.equals("inout_unchanged")) {
      data.value = stringsReply(data.value.length);
    }
  }

  private void refuse(long bytes, int elements) throws Refused {
    count(bytes);
    if (!FAULT.equals("no_raise")) {
      throw new Refused(elements);
    }
  }

  @Override
  public void raise_octets(byte[] data) throws Refused {
    refuse(data.length, data.length);
  }

  @Override
  public void raise_records(Record[] data) throws Refused {
    refuse(recordBytes(data), data.length);
  }

  @Override
  public void raise_longs(int[] data) throws Refused {
    refuse(4L * data.length, data.length);
  }

  @Override
  public void raise_doubles(double[] data) throws Refused {
    refuse(8L * data.length, data.length);
  }

  @Override
  public void raise_strings(String[] data) throws Refused {
    refuse(stringBytes(data), data.length);
  }

  @Override
  public void send_wstrings(String[] data) {
    count(stringBytes(data));
  }

  @Override
  public String[] echo_wstrings(String[] data) {
    count(stringBytes(data));
    return data;
  }

  @Override
  public String dsi_reference() {
    return directory.dsiString();
  }

  static long stringCount(String[] data) {
    return stringBytes(data);
  }
}
