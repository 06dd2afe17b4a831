package org.orbench.worker;

import com.google.gson.JsonObject;
import java.util.Set;

/**
 * What a transport (an ORB stub, a socket) offers the client command loop. Methods may throw anything;
 * {@link #translate} turns it into the answer's error. Not thread-safe: the loop runs one command at a time.
 */
public interface BenchClient {
  WorkerInfo info();

  Set<Mode> modes();

  Set<PayloadType> payloadTypes();

  /**
   * Resolves {@code endpoint}, applies {@code options} (refusing, as usage, any it does not know) and makes
   * one twoway call to prove the server answers. Replaces any previous connection.
   */
  void connect(String endpoint, JsonObject options) throws Exception;

  /** The call of a run, payload built (bytes i &amp; 0xff), untimed. Requires a connection. */
  Invocation prepare(RunSpec spec) throws Exception;

  /**
   * The calls of a run on {@code threads} threads to the server's first {@code objects} objects (PROTOCOL.md,
   * "Load at scale"), untimed: one invocation per thread, each call going to object {@code order[number]}
   * (null: object 0). Fetches and keeps what it needs (connections, references). A client that cannot
   * refuses more than one of either ({@code unsupported}).
   */
  default Invocation[] prepare(RunSpec spec, int threads, int objects, int[] order) throws Exception {
    if (threads > 1) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, "field \"threads\": this client calls on one thread only");
    }
    if (objects > 1) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, "field \"objects\": this client has no objects to call");
    }
    return new Invocation[] {prepare(spec)};
  }

  /** The invocation shapes it makes (PROTOCOL.md, "Invocation shapes"), by kind ("ami" for every ami-N). */
  default Set<String> shapes() {
    return Set.of("in");
  }

  /** The shape of the next run, before its prepare; a client without shapes refuses all but "in". */
  default void useShape(Shape shape) {
    if (!shape.isIn()) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, "shape \"" + shape.name() + "\" not supported");
    }
  }

  /** Fields of a run answer at a shape other than "in" (an AMI run's replies), read after the run. */
  default JsonObject shapeAnswer() {
    return new JsonObject();
  }

  void resetCounters() throws Exception;

  /** The IDL's shutdown() (the socket message SHUTDOWN): returns once its reply came; the server then stops. */
  default void shutdownServer() throws Exception {
    throw new WorkerException(ErrorKind.UNSUPPORTED, "this client cannot ask its server to shut down");
  }

  /** The server's barrier: returns when it has counted {@code expected} messages or the timeout passed. */
  SyncOutcome sync(long expected, long timeoutMs) throws Exception;

  Counts counters() throws Exception;

  /** A failure of this transport as an answer: transport, remote, usage or internal. */
  WorkerException translate(Exception failure);

  /** Releases the connection and the transport; the worker is about to exit. */
  void close();
}
