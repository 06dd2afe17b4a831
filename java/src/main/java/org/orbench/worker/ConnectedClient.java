package org.orbench.worker;

import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The part of a client worker every Java transport shares: its identity, every mode and payload type, the
 * connect sequence (parse the options, refuse what the transport cannot set, drop the old connection, open a
 * new one, prove the server answers with a counter reset) and the counter calls on the open connection
 * {@code C}. A transport gives the connect function ({@link #open}), its control calls and {@link #prepare}.
 */
public abstract class ConnectedClient<C> implements BenchClient {
  private final WorkerInfo info;
  private final String who;
  private final Set<String> settable;
  private C connection;
  private String endpoint;
  private ConnectOptions options;
  // The connections of threads 1.. of a run (transports that cannot share one), opened when first needed.
  private final List<C> threadConnections = new ArrayList<>();

  /**
   * @param who how refusals name the transport ("JacORB", "a socket baseline")
   * @param settable the options it can set ({@link ConnectOptions#TCP_NODELAY} meaning: also to false)
   */
  protected ConnectedClient(WorkerInfo info, String who, Set<String> settable) {
    this.info = info;
    this.who = who;
    this.settable = settable;
  }

  /** Opens a connection to {@code endpoint} with {@code options}, which it can all set. */
  protected abstract C open(String endpoint, ConnectOptions options) throws Exception;

  protected abstract void resetCounters(C connection) throws Exception;

  protected abstract void shutdownServer(C connection) throws Exception;

  protected abstract SyncOutcome sync(C connection, long expected, long timeoutMs) throws Exception;

  protected abstract Counts counters(C connection) throws Exception;

  protected abstract Invocation prepare(C connection, RunSpec spec) throws Exception;

  /** Releases a connection that is no longer used; must not throw. */
  protected void release(C connection) {}

  /**
   * The invocations of a run on several threads or objects ({@link BenchClient#prepare(RunSpec, int, int,
   * int[])}) on the client's connection; by default neither can be done ({@code unsupported}).
   */
  protected Invocation[] prepare(C connection, RunSpec spec, int threads, int objects, int[] order)
      throws Exception {
    return BenchClient.super.prepare(spec, threads, objects, order);
  }

  /** What the connection is dropped with (an object reference got from it); must not throw. */
  protected void disconnected() {}

  /**
   * A connection for each of {@code threads} threads, for a transport whose connection cannot be shared: the
   * client's own for thread 0, and one more for each further thread, opened when a run first needs it (to the
   * endpoint of connect, with its options) and kept until the next connect.
   */
  protected final List<C> threadConnections(int threads) throws Exception {
    while (threadConnections.size() < threads - 1) {
      threadConnections.add(open(endpoint, options));
    }
    List<C> out = new ArrayList<>(threads);
    out.add(connection());
    out.addAll(threadConnections.subList(0, threads - 1));
    return out;
  }

  /** Another connection to {@code reference} (an object's) with the options of connect; the caller owns it. */
  protected final C openReference(String reference) throws Exception {
    return open(reference, options);
  }

  @Override
  public final WorkerInfo info() {
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
  public final void connect(String endpoint, JsonObject options) throws Exception {
    ConnectOptions parsed = refuseUnsettable(ConnectOptions.parse(options));
    disconnect();
    C opened = open(endpoint, parsed);
    try {
      resetCounters(opened); // proves the server answers
    } catch (Exception | Error e) {
      release(opened);
      throw e;
    }
    connection = opened;
    this.endpoint = endpoint;
    this.options = parsed;
  }

  @Override
  public final Invocation prepare(RunSpec spec) throws Exception {
    return prepare(connection(), spec);
  }

  @Override
  public final Invocation[] prepare(RunSpec spec, int threads, int objects, int[] order) throws Exception {
    return prepare(connection(), spec, threads, objects, order);
  }

  @Override
  public final void resetCounters() throws Exception {
    resetCounters(counting());
  }

  @Override
  public final void shutdownServer() throws Exception {
    shutdownServer(counting());
  }

  @Override
  public final SyncOutcome sync(long expected, long timeoutMs) throws Exception {
    return sync(counting(), expected, timeoutMs);
  }

  @Override
  public final Counts counters() throws Exception {
    return counters(counting());
  }

  @Override
  public void close() {
    disconnect();
  }

  /** Where the counters are read: the connection, unless a run's calls go elsewhere (a collocated object). */
  protected C counting() {
    return connection();
  }

  protected final C connection() {
    if (connection == null) {
      throw WorkerException.usage("not connected");
    }
    return connection;
  }

  private void disconnect() {
    if (connection != null) {
      C old = connection;
      connection = null;
      disconnected();
      threadConnections.forEach(this::release);
      threadConnections.clear();
      release(old);
    }
  }

  /** {@code options}, unless it asks for what this transport cannot do: {@code unsupported}. */
  private ConnectOptions refuseUnsettable(ConnectOptions options) {
    if (Boolean.FALSE.equals(options.tcpNoDelay()) && !settable.contains(ConnectOptions.TCP_NODELAY)) {
      throw new WorkerException(
          ErrorKind.UNSUPPORTED, who + " always sets TCP_NODELAY: tcp_nodelay = false cannot be done");
    }
    if (options.socketBufferBytes() != null && !settable.contains(ConnectOptions.SOCKET_BUFFER_BYTES)) {
      throw new WorkerException(
          ErrorKind.UNSUPPORTED, who + " has no socket buffer setting: socket_buffer_bytes cannot be done");
    }
    if (options.syncScope() != null && !settable.contains(ConnectOptions.SYNC_SCOPE)) {
      throw new WorkerException(
          ErrorKind.UNSUPPORTED, who + " has no oneway sync scope: sync_scope cannot be done");
    }
    return options;
  }
}
