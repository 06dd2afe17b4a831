package org.orbench.socket;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import org.orbench.worker.ConnectOptions;

/**
 * The java-socket baseline's transport: java.net.Socket streams. Plain blocking I/O with no socket timeout
 * on purpose: with a timeout, the JDK's socket switches to non-blocking reads plus poll(), more system calls
 * per message than the blocking read this baseline is meant to measure. Reads go through the 64 KB buffer
 * of {@link BufferedLink}, so a header and a small body usually take one read call, and a payload the server
 * only counts is dropped where it was read: a BufferedInputStream in front of a reusable array copied every
 * payload once more (64 KB twoway 1.05-1.10x a plain java.net.Socket program's before, 0.96-0.97x after).
 */
final class StreamTransport implements Transport {
  private static final int BACKLOG = 50;

  @Override
  public String description() {
    return "java.net.Socket";
  }

  @Override
  public Link connect(InetSocketAddress address, ConnectOptions options) throws IOException {
    Socket socket = new Socket();
    try {
      socket.setTcpNoDelay(options.tcpNoDelayOrDefault());
      if (options.socketBufferBytes() != null) {
        socket.setSendBufferSize(options.socketBufferBytes());
        socket.setReceiveBufferSize(options.socketBufferBytes());
      }
      // No connect timeout: with one, the JDK puts the socket in non-blocking mode for good (see above).
      socket.connect(address);
      return new StreamLink(socket);
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }

  @Override
  public Listener listen(InetSocketAddress address, ConnectOptions accepted) throws IOException {
    ServerSocket listener = new ServerSocket();
    listener.setReuseAddress(true);
    if (accepted.socketBufferBytes() != null) {
      listener.setReceiveBufferSize(accepted.socketBufferBytes());
    }
    listener.bind(address, BACKLOG);
    return new Listener() {
      @Override
      public Link accept() throws IOException {
        Socket socket;
        try {
          socket = listener.accept();
        } catch (SocketException e) {
          if (listener.isClosed()) {
            return null;
          }
          throw e;
        }
        // Replies are single writes, so Nagle would rarely delay them; off anyway unless asked (tcp_nodelay).
        socket.setTcpNoDelay(accepted.tcpNoDelayOrDefault());
        if (accepted.socketBufferBytes() != null) {
          socket.setSendBufferSize(accepted.socketBufferBytes());
        }
        return new StreamLink(socket);
      }

      @Override
      public InetSocketAddress localAddress() {
        return (InetSocketAddress) listener.getLocalSocketAddress();
      }

      @Override
      public void close() throws IOException {
        listener.close();
      }
    };
  }

  private static final class StreamLink extends BufferedLink {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    StreamLink(Socket socket) throws IOException {
      super(ByteBuffer.allocate(BUFFER_BYTES));
      this.socket = socket;
      this.in = socket.getInputStream();
      this.out = socket.getOutputStream();
    }

    @Override
    protected int receive(ByteBuffer buffer, int offset, int length) throws IOException {
      int n = in.read(buffer.array(), buffer.arrayOffset() + offset, length);
      if (n == 0) {
        throw new IOException("blocking read returned 0 bytes");
      }
      return n;
    }

    @Override
    public Frame prepare(byte[] bytes, int length) {
      byte[] frame = java.util.Arrays.copyOf(bytes, length);
      return () -> out.write(frame, 0, length);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      out.write(bytes, offset, length);
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
