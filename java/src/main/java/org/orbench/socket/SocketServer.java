package org.orbench.socket;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import org.orbench.worker.Args;
import org.orbench.worker.MessageCounter;
import org.orbench.worker.ProtocolOut;
import org.orbench.worker.ServerEvents;
import org.orbench.worker.StopTriggers;
import org.orbench.worker.WorkerInfo;

/**
 * The socket baseline's server worker: {@code SocketServer --target NAME --host HOST --port PORT}. Accepts
 * connections on HOST:PORT, serves each on its own thread, and runs until a SHUTDOWN request, EOF on
 * stdin, SIGTERM or SIGINT. Its endpoint is {@code tcp://HOST:PORT}.
 */
public final class SocketServer implements AutoCloseable {
  private static final int BACKLOG = 50;

  private final ServerSocket listener;
  private final MessageCounter counter = new MessageCounter();

  private SocketServer(ServerSocket listener) {
    this.listener = listener;
  }

  /** Binds HOST:PORT (port 0: any free port). */
  public static SocketServer bind(String host, int port) throws IOException {
    ServerSocket listener = new ServerSocket();
    listener.setReuseAddress(true);
    listener.bind(new InetSocketAddress(InetAddress.getByName(host), port), BACKLOG);
    return new SocketServer(listener);
  }

  /** {@code tcp://HOST:PORT}, with the bound port and an IPv6 literal in brackets. */
  public String endpoint() {
    String host = listener.getInetAddress().getHostAddress();
    return "tcp://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + listener.getLocalPort();
  }

  public MessageCounter counter() {
    return counter;
  }

  /**
   * Accepts connections until {@link #close()} (which a SHUTDOWN request calls). Connection threads are
   * daemons: a stopping server does not wait for its clients.
   */
  public void serve() throws IOException {
    while (true) {
      Socket socket;
      try {
        socket = listener.accept();
      } catch (SocketException e) {
        if (listener.isClosed()) {
          return;
        }
        throw e;
      }
      // Replies are single writes, so Nagle would rarely delay them; off anyway, like the ORBs' servers.
      socket.setTcpNoDelay(true);
      Thread thread = new Thread(
          new ConnectionHandler(socket, counter, this::close), "orbench-conn-" + socket.getPort());
      thread.setDaemon(true);
      thread.start();
    }
  }

  @Override
  public void close() {
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
      Set<String> names = Set.of("target", "host", "port");
      Args args = Args.parse(argv, names, names);
      SocketServer server = bind(args.get("host"), args.port("port"));
      StopTriggers.install(server::close);
      events.ready(server.endpoint(), WorkerInfo.server(args.get("target"), null, null));
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
