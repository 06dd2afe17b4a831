package org.orbench.worker;

import java.util.Set;

/**
 * A client worker over a middleware's generated stub {@code S} (an ORB, Ice, gRPC): the payload-type switch
 * builds the shared payloads, the middleware binds each to its {@link Calls}, and {@link Calls#invocation}
 * makes the run's call. A new middleware gives its connect function, its three control calls and these five.
 */
public abstract class StubClient<S> extends ConnectedClient<S> {
  protected StubClient(WorkerInfo info, String who, Set<String> settable) {
    super(info, who, settable);
  }

  protected abstract Calls<?> octets(S stub, byte[] items) throws Exception;

  /** Records built from {@link Payloads}' record fields. */
  protected abstract Calls<?> records(S stub, int count) throws Exception;

  protected abstract Calls<?> longs(S stub, int[] items) throws Exception;

  protected abstract Calls<?> doubles(S stub, double[] items) throws Exception;

  protected abstract Calls<?> strings(S stub, String[] items) throws Exception;

  @Override
  protected final Invocation prepare(S stub, RunSpec spec) throws Exception {
    Calls<?> calls = switch (spec.payloadType()) {
      case OCTETS -> octets(stub, Payloads.octets(spec.payloadBytes()));
      case RECORDS -> records(stub, spec.recordCount());
      case LONGS -> longs(stub, Payloads.longs(spec.elementCount()));
      case DOUBLES -> doubles(stub, Payloads.doubles(spec.elementCount()));
      case STRINGS -> strings(stub, Payloads.strings(spec.elementCount()));
    };
    return calls.invocation(spec.mode(), spec.payloadType());
  }
}
