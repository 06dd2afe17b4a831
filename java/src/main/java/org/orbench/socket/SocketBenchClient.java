package org.orbench.socket;

import com.google.gson.JsonObject;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.EnumSet;
import java.util.Set;
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

/**
 * The client side of the socket baselines, over any {@link Transport}. Options: {@code tcp_nodelay} (boolean,
 * default true; with false, requests go out as header then body, two writes, as GIOP may write them, so
 * Nagle's algorithm and the peer's delayed ACK show), {@code socket_buffer_bytes} (SO_SNDBUF and SO_RCVBUF).
 * {@code sync_scope} is an ORB's: unsupported here.
 */
final class SocketBenchClient implements BenchClient {
  private final WorkerInfo info;
  private final Transport transport;
  private WireClient wire;

  SocketBenchClient(String target) {
    this(target, new StreamTransport());
  }

  SocketBenchClient(String target, Transport transport) {
    this.info = WorkerInfo.client(target, null, null);
    this.transport = transport;
  }

  @Override
  public WorkerInfo info() {
    return info;
  }

  @Override
  public Set<Mode> modes() {
    return EnumSet.allOf(Mode.class);
  }

  /**
   * Every type, sent as the bytes an ORB's server counts for it at the size (PROTOCOL.md, "Payload types"):
   * the payload type changes nothing on this wire, so the baseline pairs with an ORB byte for byte.
   */
  @Override
  public Set<PayloadType> payloadTypes() {
    return EnumSet.allOf(PayloadType.class);
  }

  @Override
  public void connect(String endpoint, JsonObject options) throws IOException {
    ConnectOptions parsed = ConnectOptions.parse(options);
    if (parsed.syncScope() != null) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, "option \"sync_scope\": a socket baseline has no oneway sync scope");
    }
    InetSocketAddress unresolved = parseEndpoint(endpoint);
    disconnect();
    InetSocketAddress address = new InetSocketAddress(unresolved.getHostString(), unresolved.getPort());
    if (address.isUnresolved()) {
      throw new UnknownHostException("unknown host " + unresolved.getHostString());
    }
    // Refused connections fail at once; the harness times out an unreachable host.
    WireClient connected = new WireClient(transport.connect(address, parsed), !parsed.tcpNoDelayOrDefault());
    try {
      connected.reset(); // proves the server answers
      wire = connected;
    } catch (IOException | RuntimeException e) {
      connected.close();
      throw e;
    }
  }

  @Override
  public Invocation prepare(RunSpec spec) {
    return SocketInvocations.of(wire(), spec);
  }

  @Override
  public void resetCounters() throws IOException {
    wire().reset();
  }

  @Override
  public SyncOutcome sync(long expected, long timeoutMs) throws IOException {
    return wire().sync(expected, timeoutMs);
  }

  @Override
  public Counts counters() throws IOException {
    return wire().counters();
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
  public void close() {
    disconnect();
  }

  private WireClient wire() {
    if (wire == null) {
      throw WorkerException.usage("not connected");
    }
    return wire;
  }

  private void disconnect() {
    if (wire != null) {
      try {
        wire.close();
      } catch (IOException e) {
        System.err.println("orbench: closing the connection: " + e);
      }
      wire = null;
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
