package org.orbench.jmh;

import java.util.Properties;
import java.util.concurrent.TimeUnit;
import orbench.OctetsHelper;
import orbench.Record;
import orbench.RecordsHelper;
import org.jacorb.orb.CDRInputStream;
import org.jacorb.orb.CDROutputStream;
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

/**
 * JacORB's own CDR streams marshaling and unmarshaling the campaign's payloads through the IDL helpers the
 * workers use ({@code OctetsHelper}, {@code RecordsHelper}): the marshaling part of an ORB call, without the
 * transport. A stream per operation, as an ORB makes one per request; {@link #baseline} is an empty operation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = CdrBench.WARMUP_ITERATIONS, time = 1)
@Measurement(iterations = CdrBench.MEASUREMENT_ITERATIONS, time = 1)
@Fork(CdrBench.FORKS)
public class CdrBench {
  static final int WARMUP_ITERATIONS = 3;
  static final int MEASUREMENT_ITERATIONS = 5;
  static final int FORKS = 1;

  /** Payload bytes: 16 B, 1 KiB and 64 KiB, as in harness/campaigns/quick.toml. */
  @Param({"16", "1024", "65536"})
  int bytes;

  ORB orb;
  byte[] octets;
  Record[] records;
  byte[] octetsEncoded;
  byte[] recordsEncoded;

  static ORB jacorb() {
    Properties p = new Properties();
    p.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
    p.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
    p.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    return ORB.init(new String[0], p);
  }

  @Setup(Level.Trial)
  public void setup() {
    orb = jacorb();
    octets = Payloads.octets(bytes);
    records = Payloads.records(bytes);
    CDROutputStream out = new CDROutputStream(orb);
    OctetsHelper.write(out, octets);
    octetsEncoded = out.getBufferCopy();
    out.close();
    out = new CDROutputStream(orb);
    RecordsHelper.write(out, records);
    recordsEncoded = out.getBufferCopy();
    out.close();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    orb.shutdown(true);
    orb.destroy();
  }

  @Benchmark
  public void baseline() {
    // Empty: JMH's own per-operation cost.
  }

  @Benchmark
  public void marshalOctets(Blackhole bh) {
    CDROutputStream out = new CDROutputStream(orb);
    OctetsHelper.write(out, octets);
    bh.consume(out.size());
    out.close();
  }

  @Benchmark
  public void marshalRecords(Blackhole bh) {
    CDROutputStream out = new CDROutputStream(orb);
    RecordsHelper.write(out, records);
    bh.consume(out.size());
    out.close();
  }

  @Benchmark
  public void unmarshalOctets(Blackhole bh) {
    CDRInputStream in = new CDRInputStream(orb, octetsEncoded);
    bh.consume(OctetsHelper.read(in));
    in.close();
  }

  @Benchmark
  public void unmarshalRecords(Blackhole bh) {
    CDRInputStream in = new CDRInputStream(orb, recordsEncoded);
    bh.consume(RecordsHelper.read(in));
    in.close();
  }
}
