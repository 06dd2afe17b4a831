package org.orbench.socket;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * POSIX socket calls through JNI (java/jni/orbench_jni.c, built into java/target/native/). File
 * descriptors are plain ints; every failure is an IOException carrying strerror(errno). The library is
 * loaded from java.library.path (the java-jni descriptors set it), on first use only, so nothing else in
 * the jar needs it.
 */
final class NativeSockets {
  static final String LIBRARY = "orbench-jni";

  static {
    System.loadLibrary(LIBRARY);
  }

  private NativeSockets() {}

  /**
   * A connected TCP socket to host:port (host resolved by getaddrinfo); bufferBytes above 0 sets SO_SNDBUF and
   * SO_RCVBUF before connecting.
   */
  static native int connect(String host, int port, boolean tcpNoDelay, int bufferBytes) throws IOException;

  /**
   * A listening TCP socket bound to host:port (port 0: any free port); bufferBytes above 0 sets SO_SNDBUF and
   * SO_RCVBUF before bind, which accepted sockets inherit.
   */
  static native int listen(String host, int port, int backlog, int bufferBytes) throws IOException;

  static native int localPort(int fd) throws IOException;

  /** The next connection (TCP_NODELAY as asked), or -1 once the listener was shut down. */
  static native int accept(int listenFd, boolean tcpNoDelay) throws IOException;

  /** send() until all of bytes[offset..offset+length) is sent, from a native copy of the array region. */
  static native void sendArray(int fd, byte[] bytes, int offset, int length) throws IOException;

  /** One recv() into a native buffer, copied into bytes[offset..): the count, or -1 at EOF. */
  static native int receiveArray(int fd, byte[] bytes, int offset, int length) throws IOException;

  /** send() until all of the direct buffer's bytes [offset, offset+length) are sent, no copy. */
  static native void sendDirect(int fd, ByteBuffer direct, int offset, int length) throws IOException;

  /** One recv() straight into the direct buffer at offset: the count, or -1 at EOF. */
  static native int receiveDirect(int fd, ByteBuffer direct, int offset, int length) throws IOException;

  /** shutdown(SHUT_RDWR): wakes a thread blocked in accept() or recv() on it. */
  static native void shutdown(int fd);

  static native void close(int fd);
}
