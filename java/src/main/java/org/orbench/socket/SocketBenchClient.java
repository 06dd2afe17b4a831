package org.orbench.socket;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Set;
import org.orbench.worker.ConnectOptions;
import org.orbench.worker.ConnectedClient;
import org.orbench.worker.Counts;
import org.orbench.worker.ErrorKind;
import org.orbench.worker.Invocation;
import org.orbench.worker.RunSpec;
import org.orbench.worker.SyncOutcome;
import org.orbench.worker.WorkerException;
import org.orbench.worker.WorkerInfo;

/**
 * The client side of the socket baselines, over any {@link Transport}. Options: {@code tcp_nodelay} (boolean,
 * default true; with false, requests go out as header then body, two writes, as GIOP may write them, so
 * Nagle's algorithm and the peer's delayed ACK show), {@code socket_buffer_bytes} (SO_SNDBUF and SO_RCVBUF).
 * {@code sync_scope} is an ORB's: unsupported here. Every payload type is sent as the bytes an ORB's server
 * counts for it at the size (PROTOCOL.md, "Payload types"): the type changes nothing on this wire, so the
 * baseline pairs with an ORB byte for byte.
 */
final class SocketBenchClient extends ConnectedClient<WireClient> {
  private final Transport transport;

  SocketBenchClient(String target) {
    this(target, new StreamTransport());
  }

  SocketBenchClient(String target, Transport transport) {
    super(WorkerInfo.client(target, null, null), "a socket baseline",
        Set.of(ConnectOptions.TCP_NODELAY, ConnectOptions.SOCKET_BUFFER_BYTES));
    this.transport = transport;
  }

  @Override
  protected WireClient open(String endpoint, ConnectOptions options) throws IOException {
    InetSocketAddress unresolved = parseEndpoint(endpoint);
    InetSocketAddress address = new InetSocketAddress(unresolved.getHostString(), unresolved.getPort());
    if (address.isUnresolved()) {
      throw new UnknownHostException("unknown host " + unresolved.getHostString());
    }
    // Refused connections fail at once; the harness times out an unreachable host.
    return new WireClient(transport.connect(address, options), !options.tcpNoDelayOrDefault());
  }

  @Override
  protected Invocation prepare(WireClient wire, RunSpec spec) {
    return SocketInvocations.of(wire, spec);
  }

  /**
   * A run on several threads: a socket cannot be shared, so each thread calls on a connection of its own
   * (PROTOCOL.md, "Load at scale"), opened at the first run that needs it and kept. No objects on this wire.
   */
  @Override
  protected Invocation[] prepare(WireClient wire, RunSpec spec, int threads, int objects, int[] order)
      throws Exception {
    if (objects > 1) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, "field \"objects\": a socket baseline has no objects");
    }
    List<WireClient> wires = threadConnections(threads);
    Invocation[] out = new Invocation[threads];
    for (int t = 0; t < threads; t++) {
      out[t] = SocketInvocations.of(wires.get(t), spec);
    }
    return out;
  }

  @Override
  protected void resetCounters(WireClient wire) throws IOException {
    wire.reset();
  }

  @Override
  protected void shutdownServer(WireClient wire) throws IOException {
    wire.shutdown();
  }

  @Override
  protected SyncOutcome sync(WireClient wire, long expected, long timeoutMs) throws IOException {
    return wire.sync(expected, timeoutMs);
  }

  @Override
  protected Counts counters(WireClient wire) throws IOException {
    return wire.counters();
  }

  @Override
  public WorkerException translate(Exception failure) {
    if (failure instanceof WorkerException worker) {
      return worker;
    }
    if (failure instanceof WireFormatException) {
      return new WorkerException(ErrorKind.REMOTE, "protocol error: " + failure.getMessage(), failure);
    }
    if (failure instanceof EOFException) {
      return new WorkerException(ErrorKind.TRANSPORT, "server closed the connection", failure);
    }
    if (failure instanceof ConnectException || failure instanceof UnknownHostException) {
      return new WorkerException(ErrorKind.TRANSPORT, "cannot connect: " + failure.getMessage(), failure);
    }
    if (failure instanceof IOException) {
      return new WorkerException(ErrorKind.TRANSPORT, failure.toString(), failure);
    }
    return new WorkerException(ErrorKind.INTERNAL, failure.toString(), failure);
  }

  @Override
  protected void release(WireClient wire) {
    try {
      wire.close();
    } catch (IOException e) {
      System.err.println("orbench: closing the connection: " + e);
    }
  }

  /** {@code tcp://HOST:PORT}, HOST a name, an IPv4 address or a bracketed IPv6 address. */
  static InetSocketAddress parseEndpoint(String endpoint) {
    URI uri;
    try {
      uri = new URI(endpoint);
    } catch (URISyntaxException e) {
      throw WorkerException.usage("endpoint " + endpoint + " is not tcp://HOST:PORT");
    }
    boolean onlyHostAndPort = (uri.getPath() == null || uri.getPath().isEmpty())
        && uri.getQuery() == null && uri.getFragment() == null && uri.getUserInfo() == null;
    if (!"tcp".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0 || !onlyHostAndPort) {
      throw WorkerException.usage("endpoint " + endpoint + " is not tcp://HOST:PORT");
    }
    String host = uri.getHost();
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    // Unresolved here (parsing only); connect resolves it, so an unknown name is a transport error.
    return InetSocketAddress.createUnresolved(host, uri.getPort());
  }
}
