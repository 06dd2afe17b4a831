package org.orbench.socket;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.orbench.worker.ConnectOptions;

/** How a baseline opens connections: a {@link Link} factory for the client and the server. */
public interface Transport {
  /** What the worker reports as its transport, e.g. "java.nio.channels.SocketChannel". */
  String description();

  /**
   * A connected link with the options' TCP_NODELAY (default on) and, when given, SO_SNDBUF/SO_RCVBUF set before
   * connecting. No connect timeout (refused connections fail at once).
   */
  Link connect(InetSocketAddress address, ConnectOptions options) throws IOException;

  /** A listening socket bound to {@code address} (port 0: any free port), accepting with TCP_NODELAY on. */
  default Listener listen(InetSocketAddress address) throws IOException {
    return listen(address, ConnectOptions.NONE);
  }

  /**
   * A listening socket whose accepted connections get {@code accepted}'s TCP_NODELAY (default on) and buffer
   * sizes (set on the listening socket before bind, so accepted sockets inherit them and the window scale fits).
   */
  Listener listen(InetSocketAddress address, ConnectOptions accepted) throws IOException;

  /** The server's listening socket. */
  interface Listener extends Closeable {
    /** The next connection, with the listener's options; null once {@link #close()} was called. */
    Link accept() throws IOException;

    InetSocketAddress localAddress() throws IOException;
  }
}
