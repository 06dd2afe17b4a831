package org.orbench.orb;

import com.google.gson.JsonObject;
import java.util.EnumSet;
import java.util.Set;
import orbench.Bench;
import orbench.BenchHelper;
import orbench.Counters;
import orbench.SyncResult;
import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.INV_OBJREF;
import org.omg.CORBA.ORB;
import org.orbench.worker.BenchClient;
import org.orbench.worker.Counts;
import org.orbench.worker.Invocation;
import org.orbench.worker.Mode;
import org.orbench.worker.PayloadType;
import org.orbench.worker.RunSpec;
import org.orbench.worker.SyncOutcome;
import org.orbench.worker.WorkerException;
import org.orbench.worker.WorkerInfo;

/** The client side of an ORB target: a Bench stub behind the command loop. */
final class OrbBenchClient implements BenchClient {
  private final ORB orb;
  private final WorkerInfo info;
  private Bench bench;

  OrbBenchClient(ORB orb, String target) {
    this.orb = orb;
    OrbIdentity identity = OrbIdentity.of(orb);
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
    if (!options.keySet().isEmpty()) {
      throw WorkerException.usage("unknown option(s) " + options.keySet() + ": this target takes none");
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
