package org.orbench.jmh;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import orbench.OctetsHelper;
import orbench.Record;
import orbench.RecordsHelper;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.omg.CORBA.ORB;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.OutputStream;

/**
 * Each Java ORB's own CDR streams ({@link CdrStreams}: JacORB's {@code CDROutputStream} / {@code CDRInputStream},
 * GlassFish's {@code EncapsOutputStream} / {@code EncapsInputStream}) marshaling and unmarshaling the campaign's
 * payloads through the IDL helpers the workers use ({@code OctetsHelper}, {@code RecordsHelper}): the marshaling
 * part of an ORB call, without the transport. A stream per operation, as an ORB makes one per request;
 * {@link #baseline} is an empty operation. The ORB is the {@code orb} parameter; one JMH run per ORB, each
 * with only that ORB's jars on its class path ({@link Orbs}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = CdrBench.WARMUP_ITERATIONS, time = 1)
@Measurement(iterations = CdrBench.MEASUREMENT_ITERATIONS, time = 1)
@Fork(CdrBench.FORKS)
public class CdrBench {
  /** One-second warm-up iterations: enough for C2 to compile the helpers and the streams' write paths. */
  static final int WARMUP_ITERATIONS = 3;
  /** One-second measurement iterations per fork. */
  static final int MEASUREMENT_ITERATIONS = 5;
  /** One JVM per ORB x size: the suite's time budget (about 6 min for both ORBs) allows no more. */
  static final int FORKS = 1;

  /** The ORB whose streams are measured; its jars alone must be on the class path (make jmh: -p orb=...). */
  @Param({Orbs.JACORB, Orbs.GLASSFISH})
  String orb;

  /** Payload bytes: 16 B, 1 KiB and 64 KiB, as in harness/campaigns/quick.toml. */
  @Param({"16", "1024", "65536"})
  int bytes;

  ORB orbInstance;
  CdrStreams cdr;
  byte[] octets;
  Record[] records;
  byte[] octetsEncoded;
  byte[] recordsEncoded;

  @Setup(Level.Trial)
  public void setup() {
    orbInstance = Orbs.init(orb, false);
    cdr = Orbs.cdr(orb, orbInstance);
    octets = Payloads.octets(bytes);
    records = Payloads.records(bytes);
    OutputStream out = cdr.output();
    OctetsHelper.write(out, octets);
    octetsEncoded = cdr.bytes(out);
    cdr.close(out);
    out = cdr.output();
    RecordsHelper.write(out, records);
    recordsEncoded = cdr.bytes(out);
    cdr.close(out);
    checkRoundTrip();
  }

  /** The streams must give back what was written: a fast wrong encoding would be a wrong result. */
  private void checkRoundTrip() {
    if (octetsEncoded.length != 4 + bytes) {
      throw new IllegalStateException(orb + ": octets of " + bytes + " B encoded as " + octetsEncoded.length
          + " B, expected 4 + " + bytes);
    }
    InputStream in = cdr.input(octetsEncoded);
    if (!Arrays.equals(OctetsHelper.read(in), octets)) {
      throw new IllegalStateException(orb + ": octets read back differ from those written");
    }
    cdr.close(in);
    in = cdr.input(recordsEncoded);
    Record[] back = RecordsHelper.read(in);
    cdr.close(in);
    boolean same = back.length == records.length;
    for (int i = 0; same && i < back.length; i++) {
      Record a = records[i];
      Record b = back[i];
      same = a.id == b.id && a.value == b.value && a.flags == b.flags && a.kind == b.kind && a.level == b.level;
    }
    if (!same) {
      throw new IllegalStateException(orb + ": records read back differ from those written");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    orbInstance.shutdown(true);
    orbInstance.destroy();
  }

  @Benchmark
  public void baseline() {
    // Empty: JMH's own per-operation cost.
  }

  @Benchmark
  public void marshalOctets(Blackhole bh) {
    OutputStream out = cdr.output();
    OctetsHelper.write(out, octets);
    bh.consume(cdr.size(out));
    cdr.close(out);
  }

  @Benchmark
  public void marshalRecords(Blackhole bh) {
    OutputStream out = cdr.output();
    RecordsHelper.write(out, records);
    bh.consume(cdr.size(out));
    cdr.close(out);
  }

  @Benchmark
  public void unmarshalOctets(Blackhole bh) {
    InputStream in = cdr.input(octetsEncoded);
    bh.consume(OctetsHelper.read(in));
    cdr.close(in);
  }

  @Benchmark
  public void unmarshalRecords(Blackhole bh) {
    InputStream in = cdr.input(recordsEncoded);
    bh.consume(RecordsHelper.read(in));
    cdr.close(in);
  }
}
