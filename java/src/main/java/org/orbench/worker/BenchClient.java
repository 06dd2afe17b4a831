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

  void resetCounters() throws Exception;

  /** The server's barrier: returns when it has counted {@code expected} messages or the timeout passed. */
  SyncOutcome sync(long expected, long timeoutMs) throws Exception;

  Counts counters() throws Exception;

  /** A failure of this transport as an answer: transport, remote, usage or internal. */
  WorkerException translate(Exception failure);

  /** Releases the connection and the transport; the worker is about to exit. */
  void close();
}
