package org.orbench.socket;

import com.google.gson.JsonObject;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import org.orbench.worker.Args;
import org.orbench.worker.ConnectOptions;
import org.orbench.worker.MessageCounter;
import org.orbench.worker.ProtocolOut;
import org.orbench.worker.ServerEvents;
import org.orbench.worker.StopTriggers;
import org.orbench.worker.WorkerInfo;

/**
 * The socket baselines' server worker:
 * {@code SocketServer --target NAME --host HOST --port PORT [--transport socket|nio|jni|jni-direct|ffm]
 * [--option NAME=VALUE]... [--delay-ns N]} (options: tcp_nodelay, socket_buffer_bytes, for the accepted
 * connections; {@code --delay-ns}: a known-answer server spins N ns per payload-carrying request).
 * Accepts connections on HOST:PORT through the transport (default socket: java.net.Socket), serves each on
 * its own thread, and runs until a SHUTDOWN request, EOF on stdin, SIGTERM or SIGINT. Its endpoint is
 * {@code tcp://HOST:PORT}.
 */
public final class SocketServer implements AutoCloseable {
  /** The largest {@code --delay-ns}, 1 s, as the C server. */
  public static final long MAX_DELAY_NS = 1_000_000_000L;

  private final Transport.Listener listener;
  private final MessageCounter counter = new MessageCounter();
  private final long delayNs;

  private SocketServer(Transport.Listener listener, long delayNs) {
    this.listener = listener;
    this.delayNs = delayNs;
  }

  /** Binds HOST:PORT (port 0: any free port) with java.net.Socket. */
  public static SocketServer bind(String host, int port) throws IOException {
    return bind(new StreamTransport(), host, port);
  }

  /** Binds HOST:PORT (port 0: any free port) with the given transport. */
  public static SocketServer bind(Transport transport, String host, int port) throws IOException {
    return bind(transport, host, port, ConnectOptions.NONE);
  }

  /** Binds HOST:PORT; accepted connections get the options' TCP_NODELAY (default on) and buffer sizes. */
  public static SocketServer bind(Transport transport, String host, int port, ConnectOptions accepted)
      throws IOException {
    return bind(transport, host, port, accepted, 0);
  }

  /** As above; every payload-carrying request then costs {@code delayNs} of spinning before its reply. */
  public static SocketServer bind(
      Transport transport, String host, int port, ConnectOptions accepted, long delayNs) throws IOException {
    if (delayNs < 0 || delayNs > MAX_DELAY_NS) {
      throw new IllegalArgumentException("--delay-ns must be 0 to " + MAX_DELAY_NS + " ns, got " + delayNs);
    }
    InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(host), port);
    return new SocketServer(transport.listen(address, accepted), delayNs);
  }

  /** {@code --delay-ns} as a number of ns, 0 when absent; a clear error for anything else. */
  static long delayNs(Args args) {
    String text = args.get("delay-ns");
    if (text == null) {
      return 0;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--delay-ns must be an integer number of ns, got " + text);
    }
  }

  /** {@code tcp://HOST:PORT}, with the bound port and an IPv6 literal in brackets. */
  public String endpoint() throws IOException {
    InetSocketAddress bound = listener.localAddress();
    String host = bound.getAddress().getHostAddress();
    return "tcp://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + bound.getPort();
  }

  public MessageCounter counter() {
    return counter;
  }

  /**
   * Accepts connections until {@link #close()} (which a SHUTDOWN request calls). Connection threads are
   * daemons: a stopping server does not wait for its clients.
   */
  public void serve() throws IOException {
    for (int connections = 0; ; connections++) {
      Link link;
      try {
        link = listener.accept();
      } catch (IOException e) {
        if (closed) {
          return;
        }
        throw e;
      }
      if (link == null) {
        return;
      }
      String name = "orbench-conn-" + connections;
      Thread thread = new Thread(new ConnectionHandler(link, name, counter, this::close, delayNs), name);
      thread.setDaemon(true);
      thread.start();
    }
  }

  private volatile boolean closed;

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException e) {
      System.err.println("orbench: closing the listener: " + e);
    }
  }

  public static void main(String[] argv) {
    ProtocolOut out = ProtocolOut.takeStdout();
    ServerEvents events = new ServerEvents(out);
    try {
      Args args = Args.parse(
          argv, Set.of("target", "host", "port", "transport", "option", "delay-ns"), Set.of("target", "host", "port"));
      String transport = args.get("transport") == null ? "socket" : args.get("transport");
      ConnectOptions options = ConnectOptions.parseServer(args.all("option"));
      long delayNs = delayNs(args);
      SocketServer server =
          bind(Transports.byName(transport), args.get("host"), args.port("port"), options, delayNs);
      events.reportReceived(server.counter());
      StopTriggers.install(server::close, events);
      JsonObject worker = WorkerInfo.server(args.get("target"), null, null).toJson();
      if (delayNs > 0) {
        worker.addProperty("delay_ns", delayNs);  // what this known-answer server adds per call
      }
      events.ready(server.endpoint(), worker);
      server.serve();
      events.exit(server.counter().snapshot());
    } catch (Exception e) {
      e.printStackTrace();
      events.error(e.getMessage() == null ? e.toString() : e.getMessage());
      System.exit(1);
    }
    System.exit(0);
  }
}
