package org.orbench.orb;

import com.google.gson.JsonObject;
import java.util.HashSet;
import java.util.Set;
import orbench.Bench;
import orbench.BenchHelper;
import orbench.Counters;
import orbench.Record;
import orbench.SyncResult;
import org.omg.CORBA.Any;
import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.INV_OBJREF;
import org.omg.CORBA.NO_IMPLEMENT;
import org.omg.CORBA.ORB;
import org.omg.CORBA.Policy;
import org.omg.CORBA.PolicyError;
import org.omg.CORBA.SetOverrideType;
import org.orbench.worker.Calls;
import org.orbench.worker.Invocation;
import org.orbench.worker.RunSpec;
import org.orbench.worker.Shape;
import org.orbench.worker.ConnectOptions;
import org.orbench.worker.Counts;
import org.orbench.worker.ErrorKind;
import org.orbench.worker.StubClient;
import org.orbench.worker.SyncOutcome;
import org.orbench.worker.WorkerException;
import org.orbench.worker.WorkerInfo;

/** The client side of an ORB target: a Bench stub behind the command loop. */
final class OrbBenchClient extends StubClient<Bench> {
  /** org.omg.Messaging.SYNC_SCOPE_POLICY_TYPE (CORBA Messaging). */
  static final int SYNC_SCOPE_POLICY_TYPE = 24;
  private final ORB orb;
  private final OrbShapes shapes;
  private final AmiCalls ami; // null: this ORB has no AMI here (all but JacORB)
  private final Set<String> kinds;
  private Shape shape = Shape.IN;

  OrbBenchClient(ORB orb, String target, OrbSettings settings) {
    this(orb, target, OrbIdentity.of(orb, settings));
  }

  // JacORB 3.9 and GlassFish 5.0.0 call Socket.setTcpNoDelay(true) on every connection they make or accept,
  // with no property to change it, and have no socket buffer property (only a custom socket factory class
  // could): what they do anyway (tcp_nodelay = true) is accepted, the rest refused.
  private OrbBenchClient(ORB orb, String target, OrbIdentity identity) {
    super(WorkerInfo.client(target, identity.name(), identity.version()), identity.name(),
        Set.of(ConnectOptions.SYNC_SCOPE));
    this.orb = orb;
    this.shapes = new OrbShapes(orb);
    this.ami = AmiCalls.of(orb);
    Set<String> made = new HashSet<>(OrbShapes.KINDS);
    if (ami != null) {
      made.add("ami");
    }
    this.kinds = Set.copyOf(made);
  }

  @Override
  protected Bench open(String endpoint, ConnectOptions options) {
    org.omg.CORBA.Object object;
    try {
      object = orb.string_to_object(endpoint);
    } catch (BAD_PARAM | INV_OBJREF e) {
      throw WorkerException.usage("endpoint is not a usable object reference: " + CorbaErrors.describe(e));
    }
    if (object == null) {
      throw WorkerException.usage("endpoint is a nil object reference");
    }
    shapes.forgetRemote();
    Bench bench = BenchHelper.narrow(object); // may ask the server (_is_a): a transport error if down
    return options.syncScope() == null ? bench : withSyncScope(bench, options.syncScope());
  }

  @Override
  protected void resetCounters(Bench bench) {
    bench.reset_counters();
  }

  @Override
  protected void shutdownServer(Bench bench) {
    bench.shutdown();
  }

  @Override
  protected SyncOutcome sync(Bench bench, long expected, long timeoutMs) {
    SyncResult result = bench.sync(expected, (int) timeoutMs); // IDL unsigned long: the low 32 bits
    return new SyncOutcome(result.complete, counts(result.received));
  }

  @Override
  protected Counts counters(Bench bench) {
    return counts(bench.counters());
  }

  @Override
  protected Calls<Bench, ?> octets(byte[] items) {
    return Calls.<Bench, byte[]>of(items, b -> b::push, b -> b::send, b -> b::echo_octets);
  }

  @Override
  protected Calls<Bench, ?> records(int count) {
    return Calls.<Bench, Record[]>of(RecordPayload.build(count), b -> b::push_records, b -> b::send_records,
        b -> b::echo_records).comparedBy(RecordPayload::same);
  }

  @Override
  protected Calls<Bench, ?> longs(int[] items) {
    return Calls.<Bench, int[]>of(items, b -> b::push_longs, b -> b::send_longs, b -> b::echo_longs);
  }

  @Override
  protected Calls<Bench, ?> doubles(double[] items) {
    return Calls.<Bench, double[]>of(items, b -> b::push_doubles, b -> b::send_doubles, b -> b::echo_doubles);
  }

  @Override
  protected Calls<Bench, ?> strings(String[] items) {
    return Calls.<Bench, String[]>of(items, b -> b::push_strings, b -> b::send_strings, b -> b::echo_strings);
  }

  // --- Invocation shapes (OrbShapes) ---

  @Override
  public Set<String> shapes() {
    return kinds;
  }

  @Override
  public void useShape(Shape next) {
    if (!next.isIn() && !kinds.contains(next.kind())) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, "shape \"" + next.name() + "\" not supported");
    }
    shape = next;
  }

  @Override
  protected Invocation shaped(Bench bench, RunSpec spec) throws Exception {
    if (shape.isIn()) {
      return null;
    }
    if (shape.kind().equals("ami")) {
      return ami.invocation(bench, spec, shape.outstanding());
    }
    return shapes.invocation(bench, spec, shape, target -> staticCall(target, spec));
  }

  /** An AMI run's replies, N and the most calls in flight (PROTOCOL.md, ami-N). */
  @Override
  public JsonObject shapeAnswer() {
    JsonObject out = new JsonObject();
    if (shape.kind().equals("ami")) {
      AmiCalls.Tally tally = ami.tally();
      out.addProperty("replies", tally.replies());
      out.addProperty("outstanding", tally.outstanding());
      out.addProperty("outstanding_max", tally.outstandingMax());
    }
    return out;
  }

  /** A collocated run counts on the servant in this process. */
  @Override
  protected Bench counting() {
    if (shape.kind().equals("collocated")) {
      try {
        return shapes.local();
      } catch (Exception e) {
        throw translate(e);
      }
    }
    return super.counting();
  }

  private Invocation staticCall(Bench target, RunSpec spec) throws Exception {
    Calls<Bench, ?> calls = switch (spec.payloadType()) {
      case OCTETS -> octets(org.orbench.worker.Payloads.octets(spec.payloadBytes()));
      case RECORDS -> records(spec.recordCount());
      case LONGS -> longs(org.orbench.worker.Payloads.longs(spec.elementCount()));
      case DOUBLES -> doubles(org.orbench.worker.Payloads.doubles(spec.elementCount()));
      case STRINGS -> strings(org.orbench.worker.Payloads.strings(spec.elementCount()));
    };
    return calls.invocation(spec.mode(), spec.payloadType(), target, 0);
  }

  @Override
  protected String[] references(Bench bench, int first, int count) {
    return bench.references(first, count);
  }

  /** counters(): a twoway without effect, the reference's first request (StubClient). */
  @Override
  protected void touch(Bench bench) {
    bench.counters();
  }

  @Override
  public WorkerException translate(Exception failure) {
    return CorbaErrors.translate(failure);
  }

  @Override
  protected void release(Bench bench) {
    bench._release();
  }

  @Override
  public void close() {
    super.close();
    try {
      orb.shutdown(false);
    } catch (RuntimeException e) {
      System.err.println("orbench: ORB shutdown: " + e);
    }
  }

  /**
   * {@code bench} with a CORBA Messaging SyncScopePolicy override on this reference (policy type 24, a short
   * value 0..3), written against org.omg.CORBA only, since not every ORB's OMG API jar has org.omg.Messaging.
   * An ORB that has no such policy refuses it: {@code unsupported}.
   */
  private Bench withSyncScope(Bench bench, ConnectOptions.SyncScope scope) {
    Any value = orb.create_any();
    value.insert_short(scope.value());
    Policy policy;
    try {
      policy = orb.create_policy(SYNC_SCOPE_POLICY_TYPE, value);
    } catch (PolicyError | NO_IMPLEMENT | BAD_PARAM e) {
      throw new WorkerException(ErrorKind.UNSUPPORTED,
          info().orb() + " has no SyncScopePolicy: create_policy(SYNC_SCOPE_POLICY_TYPE) raised " + e);
    }
    try {
      return BenchHelper.narrow(bench._set_policy_override(new Policy[] {policy}, SetOverrideType.ADD_OVERRIDE));
    } catch (NO_IMPLEMENT | BAD_PARAM e) {
      throw new WorkerException(ErrorKind.UNSUPPORTED,
          info().orb() + " cannot override SyncScopePolicy on a reference: " + e);
    } finally {
      policy.destroy();
    }
  }

  private static Counts counts(Counters counters) {
    return new Counts(counters.messages, counters.bytes);
  }
}
