package org.orbench.socket;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.orbench.worker.ConnectOptions;

/**
 * The java-jni baselines' transport: Java calls C socket code (send/recv) through JNI, the "JNI to C sockets"
 * of Kevin Buesing's "High Performance Java Software" (Objective Interface Systems). Two variants, as Buesing
 * and Azbel et al. ("Java in high performance networking") warn that JNI can force copies:
 * <ul>
 *   <li>{@code jni} (direct = false): frames and the receive buffer are Java byte arrays; the C side copies
 *       them to and from native memory (GetByteArrayRegion / SetByteArrayRegion) around each call;
 *   <li>{@code jni-direct} (direct = true): frames and the receive buffer are direct ByteBuffers whose
 *       memory the C side hands to the kernel as it is (GetDirectBufferAddress), no copy.
 * </ul>
 */
final class JniTransport implements Transport {
  private static final int BACKLOG = 50;
  private final boolean direct;

  JniTransport(boolean direct) {
    this.direct = direct;
  }

  @Override
  public String description() {
    return direct ? "JNI to C sockets, direct ByteBuffers" : "JNI to C sockets, copies from/to byte[]";
  }

  @Override
  public Link connect(InetSocketAddress address, ConnectOptions options) throws IOException {
    return link(NativeSockets.connect(address.getHostString(), address.getPort(), options.tcpNoDelayOrDefault(),
        options.socketBufferBytesOrDefault()));
  }

  private Link link(int fd) {
    return direct ? new DirectLink(fd) : new ArrayLink(fd);
  }

  @Override
  public Listener listen(InetSocketAddress address, ConnectOptions accepted) throws IOException {
    String host = address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
    int fd = NativeSockets.listen(host, address.getPort(), BACKLOG, accepted.socketBufferBytesOrDefault());
    boolean tcpNoDelay = accepted.tcpNoDelayOrDefault();
    InetSocketAddress bound = new InetSocketAddress(address.getAddress(), NativeSockets.localPort(fd));
    return new Listener() {
      private volatile boolean closed;

      @Override
      public Link accept() throws IOException {
        int connection = NativeSockets.accept(fd, tcpNoDelay);
        if (connection < 0 || closed) {
          return null;
        }
        return link(connection);
      }

      @Override
      public InetSocketAddress localAddress() {
        return bound;
      }

      @Override
      public void close() {
        closed = true;
        NativeSockets.shutdown(fd);
      }
    };
  }

  /** byte[] frames and receive buffer: every call copies through native memory. */
  private static final class ArrayLink extends BufferedLink {
    private final int fd;

    ArrayLink(int fd) {
      super(ByteBuffer.allocate(BUFFER_BYTES));
      this.fd = fd;
    }

    @Override
    protected int receive(ByteBuffer buffer, int offset, int length) throws IOException {
      return NativeSockets.receiveArray(fd, buffer.array(), offset, length);
    }

    @Override
    public Frame prepare(byte[] bytes, int length) {
      byte[] frame = java.util.Arrays.copyOf(bytes, length);
      return () -> NativeSockets.sendArray(fd, frame, 0, length);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      NativeSockets.sendArray(fd, bytes, offset, length);
    }

    @Override
    public void close() {
      NativeSockets.close(fd);
    }
  }

  /** Direct ByteBuffers: the kernel reads and writes their memory, no copy. */
  private static final class DirectLink extends BufferedLink {
    private final int fd;
    private ByteBuffer out = ByteBuffer.allocateDirect(BUFFER_BYTES);

    DirectLink(int fd) {
      super(ByteBuffer.allocateDirect(BUFFER_BYTES));
      this.fd = fd;
    }

    @Override
    protected int receive(ByteBuffer buffer, int offset, int length) throws IOException {
      return NativeSockets.receiveDirect(fd, buffer, offset, length);
    }

    @Override
    public Frame prepare(byte[] bytes, int length) {
      ByteBuffer frame = ByteBuffer.allocateDirect(length);
      frame.put(bytes, 0, length);
      return () -> NativeSockets.sendDirect(fd, frame, 0, length);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      if (out.capacity() < length) {
        out = ByteBuffer.allocateDirect(Math.max(length, 2 * out.capacity()));
      }
      out.put(0, bytes, offset, length);
      NativeSockets.sendDirect(fd, out, 0, length);
    }

    @Override
    public void close() {
      NativeSockets.close(fd);
    }
  }
}
