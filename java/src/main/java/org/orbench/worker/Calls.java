package org.orbench.worker;

import java.util.Objects;

/**
 * A payload type's calls on one middleware, bound to a prebuilt payload: the oneway, the twoway, the echo and
 * how an echo is compared. {@link #invocation} is the one mode switch of every stub-based Java client, so
 * their timed calls are the same code.
 */
public record Calls<P>(P payload, Oneway<P> push, Call<P> send, Echo<P> echo, Same<P> same) {
  /** One call carrying the payload, no reply. */
  public interface Call<P> {
    void call(P payload) throws Exception;
  }

  /** One call returning the payload. */
  public interface Echo<P> {
    P call(P payload) throws Exception;
  }

  /** What a run's oneways go through, opened once before timing (a proxy, or a stream that must be opened). */
  public interface Oneway<P> {
    Call<P> open() throws Exception;
  }

  public interface Same<P> {
    boolean test(P sent, P reply);
  }

  /** Oneways on an object at hand; an echo compared by {@link Objects#deepEquals} (arrays element-wise). */
  public static <P> Calls<P> of(P payload, Call<P> push, Call<P> send, Echo<P> echo) {
    return new Calls<>(payload, () -> push, send, echo, Objects::deepEquals);
  }

  /** The same with oneways through something opened per run ({@code push}). */
  public static <P> Calls<P> opening(P payload, Oneway<P> push, Call<P> send, Echo<P> echo) {
    return new Calls<>(payload, push, send, echo, Objects::deepEquals);
  }

  /** The same calls with an echo compared by {@code same} (a type without a field-wise equals). */
  public Calls<P> comparedBy(Same<P> same) {
    return new Calls<>(payload, push, send, echo, same);
  }

  /**
   * The invocation of {@code mode}; {@code type} names the payload in a wrong echo's error. The payload and
   * the call are locals of the invocation, so a timed call is one virtual call into the stub.
   */
  public Invocation invocation(Mode mode, PayloadType type) throws Exception {
    P payload = this.payload;
    switch (mode) {
      case ONEWAY: {
        Call<P> push = this.push.open();
        return new Invocation() {
          @Override
          public void call() throws Exception {
            push.call(payload);
          }
        };
      }
      case TWOWAY: {
        Call<P> send = this.send;
        return new Invocation() {
          @Override
          public void call() throws Exception {
            send.call(payload);
          }
        };
      }
      case ECHO: {
        Echo<P> echo = this.echo;
        Same<P> same = this.same;
        return new Invocation() {
          private P reply;

          @Override
          public void call() throws Exception {
            reply = echo.call(payload);
          }

          @Override
          public void check() {
            if (!same.test(payload, reply)) {
              throw new WorkerException(
                  ErrorKind.REMOTE, "echo reply of " + type.wireName() + " differs from the payload");
            }
          }
        };
      }
      default:
        throw new IllegalStateException("mode " + mode);
    }
  }
}
