package org.orbench.ffm;

import static org.orbench.ffm.LibcSockets.*;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.ConnectException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.orbench.socket.BufferedLink;
import org.orbench.worker.ConnectOptions;
import org.orbench.socket.Link;
import org.orbench.socket.Transport;

/**
 * The java-ffm baseline's transport: libc's send/recv called through the Foreign Function &amp; Memory API
 * (Java 22+), on native memory segments: frames are prepared in their own segments, the receive buffer is a
 * segment seen as a ByteBuffer by {@link BufferedLink}. No JNI code, no copy. Loaded by name from
 * {@code Transports}, so the rest of the jar runs on Java 17.
 */
public final class FfmTransport implements Transport {
  private static final int BACKLOG = 50;
  private static final int BUFFER_BYTES = 64 * 1024;

  public FfmTransport() {}

  @Override
  public String description() {
    return "libc send/recv through the FFM API";
  }

  /** sockaddr_in or sockaddr_in6 for the address, in network byte order. */
  private static MemorySegment sockaddr(Arena arena, InetSocketAddress address) throws IOException {
    InetAddress ip = address.getAddress();
    if (ip == null) {
      ip = InetAddress.getByName(address.getHostString());
    }
    byte[] raw = ip.getAddress();
    boolean v6 = ip instanceof Inet6Address;
    MemorySegment sa = arena.allocate(v6 ? 28 : 16);
    sa.set(ValueLayout.JAVA_SHORT, 0, (short) (v6 ? AF_INET6 : AF_INET));
    sa.set(ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2, (short) address.getPort());
    MemorySegment.copy(raw, 0, sa, ValueLayout.JAVA_BYTE, v6 ? 8 : 4, raw.length);
    if (v6) {
      sa.set(ValueLayout.JAVA_INT, 24, ((Inet6Address) ip).getScopeId());
    }
    return sa;
  }

  private static IOException rethrow(Throwable t) {
    if (t instanceof IOException io) {
      return io;
    }
    if (t instanceof RuntimeException re) {
      throw re;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IOException(t);
  }

  private static void nodelay(MemorySegment state, int fd, boolean on, Arena arena) throws Throwable {
    MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
    value.set(ValueLayout.JAVA_INT, 0, on ? 1 : 0);
    if (setIntOption(state, fd, IPPROTO_TCP, TCP_NODELAY, value) != 0) {
      throw failure("setsockopt(TCP_NODELAY)", errno(state));
    }
  }

  /** SO_SNDBUF and SO_RCVBUF (nothing for 0: the OS default). */
  private static void buffers(MemorySegment state, int fd, int bytes, Arena arena) throws Throwable {
    if (bytes <= 0) {
      return;
    }
    MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
    value.set(ValueLayout.JAVA_INT, 0, bytes);
    if (setIntOption(state, fd, SOL_SOCKET, SO_SNDBUF, value) != 0
        || setIntOption(state, fd, SOL_SOCKET, SO_RCVBUF, value) != 0) {
      throw failure("setsockopt(SO_SNDBUF/SO_RCVBUF)", errno(state));
    }
  }

  @Override
  public Link connect(InetSocketAddress address, ConnectOptions options) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = errnoSegment(arena);
      MemorySegment sa = sockaddr(arena, address);
      int family = sa.get(ValueLayout.JAVA_SHORT, 0);
      int fd = socket(state, family, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0) {
        throw failure("socket", errno(state));
      }
      try {
        nodelay(state, fd, options.tcpNoDelayOrDefault(), arena);
        buffers(state, fd, options.socketBufferBytesOrDefault(), arena);
        if (LibcSockets.connect(state, fd, sa, (int) sa.byteSize()) != 0) {
          int errno = errno(state);
          throw errno == ECONNREFUSED ? new ConnectException("connect: connection refused") : failure("connect", errno);
        }
      } catch (Throwable t) {
        LibcSockets.close(fd);
        throw t;
      }
      return new FfmLink(fd);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  @Override
  public Listener listen(InetSocketAddress address, ConnectOptions accepted) throws IOException {
    Arena arena = Arena.ofAuto();
    try {
      MemorySegment state = errnoSegment(arena);
      MemorySegment sa = sockaddr(arena, address);
      int fd = socket(state, sa.get(ValueLayout.JAVA_SHORT, 0), SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0) {
        throw failure("socket", errno(state));
      }
      MemorySegment one = arena.allocate(ValueLayout.JAVA_INT);
      one.set(ValueLayout.JAVA_INT, 0, 1);
      buffers(state, fd, accepted.socketBufferBytesOrDefault(), arena);
      if (setIntOption(state, fd, SOL_SOCKET, SO_REUSEADDR, one) != 0
          || bind(state, fd, sa, (int) sa.byteSize()) != 0 || LibcSockets.listen(state, fd, BACKLOG) != 0) {
        int errno = errno(state);
        LibcSockets.close(fd);
        throw failure("listen", errno);
      }
      MemorySegment bound = arena.allocate(28);
      MemorySegment length = arena.allocate(ValueLayout.JAVA_INT);
      length.set(ValueLayout.JAVA_INT, 0, 28);
      if (getsockname(state, fd, bound, length) != 0) {
        throw failure("getsockname", errno(state));
      }
      int port = Short.toUnsignedInt(bound.get(ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2));
      InetSocketAddress local = new InetSocketAddress(address.getAddress(), port);
      return new FfmListener(arena, fd, local, accepted.tcpNoDelayOrDefault());
    } catch (Throwable t) {
      throw rethrow(t); // the automatic arena's memory is freed by the GC
    }
  }

  private static final class FfmListener implements Listener {
    private final Arena arena;
    private final MemorySegment state;
    private final int fd;
    private final InetSocketAddress local;
    private final boolean tcpNoDelay;
    private volatile boolean closed;

    FfmListener(Arena arena, int fd, InetSocketAddress local, boolean tcpNoDelay) {
      this.tcpNoDelay = tcpNoDelay;
      this.arena = arena;
      this.state = errnoSegment(arena);
      this.fd = fd;
      this.local = local;
    }

    @Override
    public Link accept() throws IOException {
      try {
        while (true) {
          int connection = LibcSockets.accept(state, fd);
          if (connection >= 0) {
            if (closed) {
              LibcSockets.close(connection);
              return null;
            }
            try (Arena scratch = Arena.ofConfined()) {
              nodelay(errnoSegment(scratch), connection, tcpNoDelay, scratch);
            }
            return new FfmLink(connection);
          }
          int errno = errno(state);
          if (errno == EINTR || errno == ECONNABORTED) {
            continue;
          }
          if (closed || errno == EINVAL || errno == EBADF) {
            return null; // shut down by close(): the server stops
          }
          throw failure("accept", errno);
        }
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }

    @Override
    public InetSocketAddress localAddress() {
      return local;
    }

    @Override
    public void close() throws IOException {
      closed = true;
      try {
        LibcSockets.shutdown(fd);
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }
  }

  /** A connection: receive buffer, reply buffer and errno capture in native memory of its own arena. */
  private static final class FfmLink extends BufferedLink {
    private final int fd;
    private final Arena arena;
    private final MemorySegment state;
    private final MemorySegment in;
    private MemorySegment out;

    private FfmLink(int fd, Arena arena, MemorySegment in) {
      super(in.asByteBuffer());
      this.fd = fd;
      this.arena = arena;
      this.in = in;
      this.state = errnoSegment(arena);
      this.out = arena.allocate(BUFFER_BYTES);
    }

    FfmLink(int fd) {
      this(fd, Arena.ofAuto());
    }

    private FfmLink(int fd, Arena arena) {
      this(fd, arena, arena.allocate(BUFFER_BYTES));
    }

    @Override
    protected int receive(ByteBuffer buffer, int offset, int length) throws IOException {
      try {
        while (true) {
          long n = recv(state, fd, in.asSlice(offset, length), length, 0);
          if (n > 0) {
            return (int) n;
          }
          if (n == 0) {
            return -1;
          }
          int errno = errno(state);
          if (errno != EINTR) {
            throw failure("recv", errno);
          }
        }
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }

    private void sendAll(MemorySegment bytes, long length) throws IOException {
      try {
        long done = 0;
        while (done < length) {
          long n = send(state, fd, done == 0 ? bytes : bytes.asSlice(done), length - done, MSG_NOSIGNAL);
          if (n < 0) {
            int errno = errno(state);
            if (errno == EINTR) {
              continue;
            }
            throw failure("send", errno);
          }
          done += n;
        }
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }

    @Override
    public Frame prepare(byte[] bytes, int length) {
      MemorySegment frame = arena.allocate(Math.max(1, length));
      MemorySegment.copy(bytes, 0, frame, ValueLayout.JAVA_BYTE, 0, length);
      return () -> sendAll(frame, length);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      if (out.byteSize() < length) {
        out = arena.allocate(Math.max(length, 2 * out.byteSize()));
      }
      MemorySegment.copy(bytes, offset, out, ValueLayout.JAVA_BYTE, 0, length);
      sendAll(out, length);
    }

    @Override
    public void close() throws IOException {
      try {
        LibcSockets.close(fd);
      } catch (Throwable t) {
        throw rethrow(t);
      }
      // The automatic arena (buffers, frames) is freed by the GC once the link is unreachable.
    }
  }
}
