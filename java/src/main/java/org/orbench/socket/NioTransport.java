package org.orbench.socket;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.orbench.worker.ConnectOptions;

/**
 * The java-nio baseline's transport: a SocketChannel in blocking mode, reading into and writing from
 * direct ByteBuffers, so the JDK passes their memory to the kernel as it is (a heap buffer would be copied
 * into a temporary direct one on every call). Request frames are prepared in their own direct buffers;
 * replies and control requests are copied into one direct write buffer first.
 */
final class NioTransport implements Transport {
  private static final int BACKLOG = 50;

  @Override
  public String description() {
    return "java.nio.channels.SocketChannel (blocking, direct ByteBuffers)";
  }

  @Override
  public Link connect(InetSocketAddress address, ConnectOptions options) throws IOException {
    SocketChannel channel = SocketChannel.open();
    try {
      channel.setOption(StandardSocketOptions.TCP_NODELAY, options.tcpNoDelayOrDefault());
      if (options.socketBufferBytes() != null) {
        channel.setOption(StandardSocketOptions.SO_SNDBUF, options.socketBufferBytes());
        channel.setOption(StandardSocketOptions.SO_RCVBUF, options.socketBufferBytes());
      }
      channel.connect(address);
      return new NioLink(channel);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  @Override
  public Listener listen(InetSocketAddress address, ConnectOptions accepted) throws IOException {
    ServerSocketChannel listener = ServerSocketChannel.open();
    listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
    if (accepted.socketBufferBytes() != null) {
      listener.setOption(StandardSocketOptions.SO_RCVBUF, accepted.socketBufferBytes());
    }
    listener.bind(address, BACKLOG);
    return new Listener() {
      @Override
      public Link accept() throws IOException {
        SocketChannel channel;
        try {
          channel = listener.accept();
        } catch (AsynchronousCloseException e) {
          return null;
        }
        channel.setOption(StandardSocketOptions.TCP_NODELAY, accepted.tcpNoDelayOrDefault());
        if (accepted.socketBufferBytes() != null) {
          channel.setOption(StandardSocketOptions.SO_SNDBUF, accepted.socketBufferBytes());
        }
        return new NioLink(channel);
      }

      @Override
      public InetSocketAddress localAddress() throws IOException {
        return (InetSocketAddress) listener.getLocalAddress();
      }

      @Override
      public void close() throws IOException {
        listener.close();
      }
    };
  }

  private static final class NioLink extends BufferedLink {
    private final SocketChannel channel;
    private ByteBuffer out = ByteBuffer.allocateDirect(BUFFER_BYTES);

    NioLink(SocketChannel channel) {
      super(ByteBuffer.allocateDirect(BUFFER_BYTES));
      this.channel = channel;
    }

    @Override
    protected int receive(ByteBuffer buffer, int offset, int length) throws IOException {
      buffer.limit(offset + length).position(offset);
      int n = channel.read(buffer);
      if (n == 0) {
        throw new EOFException("blocking read returned 0 bytes");
      }
      return n;
    }

    private void writeAll(ByteBuffer buffer) throws IOException {
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
    }

    @Override
    public Frame prepare(byte[] bytes, int length) {
      ByteBuffer frame = ByteBuffer.allocateDirect(length);
      frame.put(bytes, 0, length);
      return () -> {
        frame.clear();
        writeAll(frame);
      };
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      if (out.capacity() < length) {
        out = ByteBuffer.allocateDirect(Math.max(length, 2 * out.capacity()));
      }
      out.clear();
      out.put(bytes, offset, length).flip();
      writeAll(out);
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }
}
