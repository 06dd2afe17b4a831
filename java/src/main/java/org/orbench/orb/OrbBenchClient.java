package org.orbench.orb;

import com.google.gson.JsonObject;
import java.util.EnumSet;
import java.util.Set;
import orbench.Bench;
import orbench.BenchHelper;
import orbench.Counters;
import orbench.SyncResult;
import org.omg.CORBA.Any;
import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.INV_OBJREF;
import org.omg.CORBA.NO_IMPLEMENT;
import org.omg.CORBA.ORB;
import org.omg.CORBA.Policy;
import org.omg.CORBA.PolicyError;
import org.omg.CORBA.SetOverrideType;
import org.orbench.worker.BenchClient;
import org.orbench.worker.ConnectOptions;
import org.orbench.worker.Counts;
import org.orbench.worker.ErrorKind;
import org.orbench.worker.Invocation;
import org.orbench.worker.Mode;
import org.orbench.worker.PayloadType;
import org.orbench.worker.RunSpec;
import org.orbench.worker.SyncOutcome;
import org.orbench.worker.WorkerException;
import org.orbench.worker.WorkerInfo;

/** The client side of an ORB target: a Bench stub behind the command loop. */
final class OrbBenchClient implements BenchClient {
  /** org.omg.Messaging.SYNC_SCOPE_POLICY_TYPE (CORBA Messaging). */
  static final int SYNC_SCOPE_POLICY_TYPE = 24;
  private final ORB orb;
  private final WorkerInfo info;
  private Bench bench;

  OrbBenchClient(ORB orb, String target, OrbSettings settings) {
    this.orb = orb;
    OrbIdentity identity = OrbIdentity.of(orb, settings);
    this.info = WorkerInfo.client(target, identity.name(), identity.version());
  }

  @Override
  public WorkerInfo info() {
    return info;
  }

  @Override
  public Set<Mode> modes() {
    return EnumSet.allOf(Mode.class);
  }

  @Override
  public Set<PayloadType> payloadTypes() {
    return EnumSet.allOf(PayloadType.class);
  }

  @Override
  public void connect(String endpoint, JsonObject options) {
    ConnectOptions parsed = ConnectOptions.parse(options);
    // JacORB 3.9 and GlassFish 5.0.0 call Socket.setTcpNoDelay(true) on every connection they make or accept,
    // with no property to change it, and have no socket buffer property (only a custom socket factory class
    // could): what they do anyway (tcp_nodelay = true) is accepted, the rest refused.
    if (parsed.tcpNoDelay() != null && !parsed.tcpNoDelay()) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, info.orb() + " always sets TCP_NODELAY: tcp_nodelay = false cannot be done");
    }
    if (parsed.socketBufferBytes() != null) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, info.orb() + " has no socket buffer setting: socket_buffer_bytes cannot be done");
    }
    release();
    org.omg.CORBA.Object object;
    try {
      object = orb.string_to_object(endpoint);
    } catch (BAD_PARAM | INV_OBJREF e) {
      throw WorkerException.usage("endpoint is not a usable object reference: " + CorbaErrors.describe(e));
    }
    if (object == null) {
      throw WorkerException.usage("endpoint is a nil object reference");
    }
    Bench connected = BenchHelper.narrow(object); // may ask the server (_is_a): a transport error if down
    if (parsed.syncScope() != null) {
      connected = withSyncScope(connected, parsed.syncScope());
    }
    connected.reset_counters(); // proves the server answers
    bench = connected;
  }

  @Override
  public Invocation prepare(RunSpec spec) {
    return OrbInvocations.of(bench(), spec);
  }

  @Override
  public void resetCounters() {
    bench().reset_counters();
  }

  @Override
  public SyncOutcome sync(long expected, long timeoutMs) {
    SyncResult result = bench().sync(expected, (int) timeoutMs); // IDL unsigned long: the low 32 bits
    return new SyncOutcome(result.complete, counts(result.received));
  }

  @Override
  public Counts counters() {
    return counts(bench().counters());
  }

  @Override
  public WorkerException translate(Exception failure) {
    return CorbaErrors.translate(failure);
  }

  @Override
  public void close() {
    release();
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
          info.orb() + " has no SyncScopePolicy: create_policy(SYNC_SCOPE_POLICY_TYPE) raised " + e);
    }
    try {
      return BenchHelper.narrow(bench._set_policy_override(new Policy[] {policy}, SetOverrideType.ADD_OVERRIDE));
    } catch (NO_IMPLEMENT | BAD_PARAM e) {
      throw new WorkerException(ErrorKind.UNSUPPORTED,
          info.orb() + " cannot override SyncScopePolicy on a reference: " + e);
    } finally {
      policy.destroy();
    }
  }

  private Bench bench() {
    if (bench == null) {
      throw WorkerException.usage("not connected");
    }
    return bench;
  }

  private void release() {
    if (bench != null) {
      bench._release();
      bench = null;
    }
  }

  private static Counts counts(Counters counters) {
    return new Counts(counters.messages, counters.bytes);
  }
}
