package org.orbench.socket;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;

/** How a baseline opens connections: a {@link Link} factory for the client and the server. */
public interface Transport {
  /** What the worker reports as its transport, e.g. "java.nio.channels.SocketChannel". */
  String description();

  /** A connected link; TCP_NODELAY as asked. No connect timeout (refused connections fail at once). */
  Link connect(InetSocketAddress address, boolean tcpNoDelay) throws IOException;

  /** A listening socket bound to {@code address} (port 0: any free port). */
  Listener listen(InetSocketAddress address) throws IOException;

  /** The server's listening socket. */
  interface Listener extends Closeable {
    /** The next connection, TCP_NODELAY on; null once {@link #close()} was called. */
    Link accept() throws IOException;

    InetSocketAddress localAddress() throws IOException;
  }
}
