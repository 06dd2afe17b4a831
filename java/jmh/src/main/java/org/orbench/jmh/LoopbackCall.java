package org.orbench.jmh;

import java.util.concurrent.TimeUnit;
import orbench.Bench;
import orbench.BenchHelper;
import orbench.BenchPOA;
import orbench.Counters;
import orbench.Record;
import orbench.SyncResult;
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
import org.omg.CORBA.ORB;
import org.omg.CORBA.portable.ObjectImpl;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;

/**
 * A twoway {@code send(octets)} over loopback TCP on the ORB named by the {@code orb} parameter (JacORB or
 * GlassFish), client and server ORBs in one JVM: two ORB instances, so the call really goes through GIOP and
 * the socket, not a colocated shortcut (setup checks that the stub is not local). Run with {@code -prof gc}:
 * {@code gc.alloc.rate.norm} is then the bytes both sides allocate per call: marshaling, the request and reply
 * objects, the servant's unmarshaled payload. {@link #baseline} is an empty operation. One JMH run per ORB,
 * each with only that ORB's jars on its class path ({@link Orbs}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = LoopbackCall.WARMUP_ITERATIONS, time = 1)
@Measurement(iterations = LoopbackCall.MEASUREMENT_ITERATIONS, time = 1)
@Fork(value = LoopbackCall.FORKS, jvmArgsAppend = {"-Xms256m", "-Xmx256m", "-XX:+UseG1GC"})
public class LoopbackCall {
  /** One-second warm-up iterations: the ORBs' request paths compiled, their buffer pools filled. */
  static final int WARMUP_ITERATIONS = 3;
  /** One-second measurement iterations per fork. */
  static final int MEASUREMENT_ITERATIONS = 5;
  /** One JVM per ORB x size: the suite's time budget allows no more. */
  static final int FORKS = 1;

  /** The ORB of both ends; its jars alone must be on the class path (make jmh: -p orb=...). */
  @Param({Orbs.JACORB, Orbs.GLASSFISH})
  String orb;

  /** Payload bytes of send(): 1 B, 1 KiB, 64 KiB. */
  @Param({"1", "1024", "65536"})
  int bytes;

  ORB serverOrb;
  ORB clientOrb;
  Thread serverThread;
  Bench bench;
  byte[] payload;

  /** The smallest servant: counts nothing, returns at once; the ORB's work is what is measured. */
  static final class EmptyServant extends BenchPOA {
    @Override public void push(byte[] data) {}

    @Override public void push_records(Record[] data) {}

    @Override public void send(byte[] data) {}

    @Override public void send_records(Record[] data) {}

    @Override public byte[] echo_octets(byte[] data) {
      return data;
    }

    @Override public Record[] echo_records(Record[] data) {
      return data;
    }

    @Override public void push_longs(int[] data) {}

    @Override public void push_doubles(double[] data) {}

    @Override public void push_strings(String[] data) {}

    @Override public void send_longs(int[] data) {}

    @Override public void send_doubles(double[] data) {}

    @Override public void send_strings(String[] data) {}

    @Override public int[] echo_longs(int[] data) {
      return data;
    }

    @Override public double[] echo_doubles(double[] data) {
      return data;
    }

    @Override public String[] echo_strings(String[] data) {
      return data;
    }

    @Override public SyncResult sync(long expected, int timeoutMs) {
      return new SyncResult(true, new Counters(0, 0));
    }

    @Override public Counters counters() {
      return new Counters(0, 0);
    }

    @Override public void reset_counters() {}

    @Override public String[] references(int first, int count) {
      return new String[0];
    }

    @Override public void shutdown() {}
  }

  @Setup(Level.Trial)
  public void setup() throws Exception {
    serverOrb = Orbs.init(orb, true);
    POA root = POAHelper.narrow(serverOrb.resolve_initial_references("RootPOA"));
    root.the_POAManager().activate();
    org.omg.CORBA.Object ref = root.servant_to_reference(new EmptyServant());
    String ior = serverOrb.object_to_string(ref);
    serverThread = new Thread(serverOrb::run, "server-orb");
    serverThread.setDaemon(true);
    serverThread.start();
    clientOrb = Orbs.init(orb, false);
    bench = BenchHelper.narrow(clientOrb.string_to_object(ior));
    if (((ObjectImpl) bench)._is_local()) {
      throw new IllegalStateException(orb + ": the client ORB treats the servant as colocated; this benchmark "
          + "measures a call through GIOP over loopback TCP");
    }
    payload = Payloads.octets(bytes);
    bench.reset_counters();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    clientOrb.shutdown(true);
    serverOrb.shutdown(true);
  }

  @Benchmark
  public void baseline() {
    // Empty: JMH's own per-operation cost.
  }

  @Benchmark
  public void twowaySend() {
    bench.send(payload);
  }
}
