package org.orbench.worker;

import java.util.List;
import java.util.Objects;

/**
 * A payload type's calls on one middleware, bound to a prebuilt payload: the oneway, the twoway and the echo,
 * each as a binder that makes the call on a stub {@code S} (an object reference, a proxy, a channel), and how
 * an echo is compared. The {@code invocation} methods hold the one mode switch of every stub-based Java
 * client, so their timed calls are the same code: a bound call on the one object of a run, or a call picked
 * by its number among several objects.
 */
public record Calls<S, P>(P payload, Open<S, P> push, Bind<S, Call<P>> send, Bind<S, Echo<P>> echo, Same<P> same) {
  /** One call carrying the payload, no reply. */
  public interface Call<P> {
    void call(P payload) throws Exception;
  }

  /** One call returning the payload. */
  public interface Echo<P> {
    P call(P payload) throws Exception;
  }

  /** A call bound to a stub, before timing ({@code stub::send}). */
  public interface Bind<S, F> {
    F bind(S stub) throws Exception;
  }

  /**
   * What a run's oneways go through on the stub, opened once before timing for the thread that makes them (a
   * proxy, or a stream that must be opened and that only one thread may write).
   */
  public interface Open<S, P> {
    Call<P> open(S stub, int thread) throws Exception;
  }

  public interface Same<P> {
    boolean test(P sent, P reply);
  }

  /** Oneways on the stub at hand; an echo compared by {@link Objects#deepEquals} (arrays element-wise). */
  public static <S, P> Calls<S, P> of(P payload, Bind<S, Call<P>> push, Bind<S, Call<P>> send, Bind<S, Echo<P>> echo) {
    return new Calls<>(payload, (stub, thread) -> push.bind(stub), send, echo, Objects::deepEquals);
  }

  /** The same with oneways through something opened per run and thread ({@code push}). */
  public static <S, P> Calls<S, P> opening(P payload, Open<S, P> push, Bind<S, Call<P>> send, Bind<S, Echo<P>> echo) {
    return new Calls<>(payload, push, send, echo, Objects::deepEquals);
  }

  /** The same calls with an echo compared by {@code same} (a type without a field-wise equals). */
  public Calls<S, P> comparedBy(Same<P> same) {
    return new Calls<>(payload, push, send, echo, same);
  }

  /**
   * The invocation of {@code mode} on {@code stub} for thread {@code thread}; {@code type} names the payload
   * in a wrong echo's error. The payload and the bound call are locals of the invocation, so a timed call is
   * one virtual call into the stub.
   */
  public Invocation invocation(Mode mode, PayloadType type, S stub, int thread) throws Exception {
    P payload = this.payload;
    switch (mode) {
      case ONEWAY: {
        Call<P> push = this.push.open(stub, thread);
        return new Invocation() {
          @Override
          public void call() throws Exception {
            push.call(payload);
          }
        };
      }
      case TWOWAY: {
        Call<P> send = this.send.bind(stub);
        return new Invocation() {
          @Override
          public void call() throws Exception {
            send.call(payload);
          }
        };
      }
      case ECHO: {
        Echo<P> echo = this.echo.bind(stub);
        Same<P> same = this.same;
        return new Invocation() {
          private P reply;

          @Override
          public void call() throws Exception {
            reply = echo.call(payload);
          }

          @Override
          public void check() {
            checkEcho(same, payload, reply, type);
          }
        };
      }
      default:
        throw new IllegalStateException("mode " + mode);
    }
  }

  /**
   * One invocation per thread of {@code mode} on several objects: call number i goes to
   * {@code stubs[order[i]]}. Each object's call is bound once and shared by the threads, its oneway opened for
   * thread 0: a middleware whose oneways are per thread (gRPC's streams) has no objects.
   */
  @SuppressWarnings("unchecked")
  public Invocation[] invocations(Mode mode, PayloadType type, List<S> stubs, int[] order, int threads)
      throws Exception {
    Invocation[] out = new Invocation[threads];
    switch (mode) {
      case ONEWAY, TWOWAY: {
        Call<P>[] calls = new Call[stubs.size()];
        for (int k = 0; k < calls.length; k++) {
          calls[k] = mode == Mode.ONEWAY ? push.open(stubs.get(k), 0) : send.bind(stubs.get(k));
        }
        for (int t = 0; t < threads; t++) {
          out[t] = new ObjectCalls<>(calls, order, payload);
        }
        return out;
      }
      case ECHO: {
        Echo<P>[] echoes = new Echo[stubs.size()];
        for (int k = 0; k < echoes.length; k++) {
          echoes[k] = echo.bind(stubs.get(k));
        }
        for (int t = 0; t < threads; t++) {
          out[t] = new ObjectEchoes<>(echoes, order, payload, same, type);
        }
        return out;
      }
      default:
        throw new IllegalStateException("mode " + mode);
    }
  }

  private static <P> void checkEcho(Same<P> same, P payload, P reply, PayloadType type) {
    if (!same.test(payload, reply)) {
      throw new WorkerException(ErrorKind.REMOTE, "echo reply of " + type.wireName() + " differs from the payload");
    }
  }

  /** Oneways or twoways to several objects, the object of each call by its number. */
  private static final class ObjectCalls<P> extends Invocation {
    private final Call<P>[] calls;
    private final int[] order;
    private final P payload;
    private int next;

    ObjectCalls(Call<P>[] calls, int[] order, P payload) {
      this.calls = calls;
      this.order = order;
      this.payload = payload;
    }

    @Override
    public void startAt(long number) {
      next = (int) number;
    }

    @Override
    public void call() throws Exception {
      calls[order[next++]].call(payload);
    }
  }

  /** Echoes to several objects, the object of each call by its number. */
  private static final class ObjectEchoes<P> extends Invocation {
    private final Echo<P>[] echoes;
    private final int[] order;
    private final P payload;
    private final Same<P> same;
    private final PayloadType type;
    private int next;
    private P reply;

    ObjectEchoes(Echo<P>[] echoes, int[] order, P payload, Same<P> same, PayloadType type) {
      this.echoes = echoes;
      this.order = order;
      this.payload = payload;
      this.same = same;
      this.type = type;
    }

    @Override
    public void startAt(long number) {
      next = (int) number;
    }

    @Override
    public void call() throws Exception {
      reply = echoes[order[next++]].call(payload);
    }

    @Override
    public void check() {
      checkEcho(same, payload, reply, type);
    }
  }
}
