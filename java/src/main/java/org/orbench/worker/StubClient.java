package org.orbench.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A client worker over a middleware's generated stub {@code S} (an ORB, Ice, gRPC): the payload-type switch
 * builds the shared payloads, the middleware gives each type's {@link Calls}, and {@link Calls#invocation}
 * binds them to the stub and makes the run's call. A new middleware gives its connect function, its three
 * control calls and these five; for a server's several objects, {@link #references}. Every thread of a run
 * shares the one stub, as an application's threads would.
 */
public abstract class StubClient<S> extends ConnectedClient<S> {
  // Objects 1.. of the server (0 is the connection's), from references(), kept until the next connect.
  private final List<S> objects = new ArrayList<>();

  protected StubClient(WorkerInfo info, String who, Set<String> settable) {
    super(info, who, settable);
  }

  protected abstract Calls<S, ?> octets(byte[] items) throws Exception;

  /** Records built from {@link Payloads}' record fields. */
  protected abstract Calls<S, ?> records(int count) throws Exception;

  protected abstract Calls<S, ?> longs(int[] items) throws Exception;

  protected abstract Calls<S, ?> doubles(double[] items) throws Exception;

  protected abstract Calls<S, ?> strings(String[] items) throws Exception;

  /**
   * The IDL operation {@code references(first, count)}: the stringified references of the server's objects
   * (PROTOCOL.md, "Load at scale"). A middleware without objects keeps this refusal.
   */
  protected String[] references(S stub, int first, int count) throws Exception {
    throw new WorkerException(ErrorKind.UNSUPPORTED, "field \"objects\": " + info().orb() + " has no objects");
  }

  /**
   * Makes one untimed call on an object fetched by {@link #references} ({@code counters()}, a twoway without
   * effect), so that no timed call is its reference's first: an ORB binds a reference to its connection then.
   */
  protected void touch(S stub) throws Exception {}

  @Override
  protected final Invocation prepare(S stub, RunSpec spec) throws Exception {
    Invocation shaped = shaped(stub, spec);
    return shaped != null ? shaped : calls(spec).invocation(spec.mode(), spec.payloadType(), stub, 0);
  }

  /** The call of a run at a shape other than "in" (PROTOCOL.md, "Invocation shapes"); null: the "in" call. */
  protected Invocation shaped(S stub, RunSpec spec) throws Exception {
    return null;
  }

  @Override
  protected final Invocation[] prepare(S stub, RunSpec spec, int threads, int objectCount, int[] order)
      throws Exception {
    Calls<S, ?> calls = calls(spec);
    if (objectCount > 1) {
      return calls.invocations(spec.mode(), spec.payloadType(), objects(stub, objectCount), order, threads);
    }
    Invocation[] out = new Invocation[threads];
    for (int t = 0; t < threads; t++) {
      out[t] = calls.invocation(spec.mode(), spec.payloadType(), stub, t);
    }
    return out;
  }

  @Override
  protected final void disconnected() {
    objects.forEach(this::release);
    objects.clear();
  }

  private Calls<S, ?> calls(RunSpec spec) throws Exception {
    return switch (spec.payloadType()) {
      case OCTETS -> octets(Payloads.octets(spec.payloadBytes()));
      case RECORDS -> records(spec.recordCount());
      case LONGS -> longs(Payloads.longs(spec.elementCount()));
      case DOUBLES -> doubles(Payloads.doubles(spec.elementCount()));
      case STRINGS -> strings(Payloads.strings(spec.elementCount()));
    };
  }

  /**
   * Objects 0 .. count - 1: the connection's and those fetched so far, fetching the others now (untimed, at
   * most {@link #REFERENCES_PER_CALL} a call).
   */
  private List<S> objects(S stub, int count) throws Exception {
    while (objects.size() + 1 < count) {
      int first = objects.size() + 1;
      String[] got = references(stub, first, Math.min(REFERENCES_PER_CALL, count - first));
      if (got.length == 0) {
        throw new WorkerException(ErrorKind.REMOTE, "the server has " + first + " objects, the run asks for "
            + count + " (start it with --objects)");
      }
      for (String reference : got) {
        S object = openReference(reference);
        objects.add(object);
        touch(object);
      }
    }
    List<S> out = new ArrayList<>(count);
    out.add(stub);
    out.addAll(objects.subList(0, count - 1));
    return out;
  }

  /** The most references one {@code references(first, count)} call asks for (PROTOCOL.md). */
  static final int REFERENCES_PER_CALL = 1000;
}
