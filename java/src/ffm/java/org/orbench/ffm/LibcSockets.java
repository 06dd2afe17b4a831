package org.orbench.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * libc's socket calls as FFM downcalls (Java 22+), each capturing errno. Linux x86-64/aarch64 constants;
 * this is the only place that knows them. Every method takes the errno segment of its caller (one per
 * thread: a link or the accept loop), so no call allocates.
 */
final class LibcSockets {
  static final int AF_INET = 2;
  static final int AF_INET6 = 10;
  static final int SOCK_STREAM = 1;
  static final int SOCK_CLOEXEC = 0x80000;
  static final int IPPROTO_TCP = 6;
  static final int TCP_NODELAY = 1;
  static final int SOL_SOCKET = 1;
  static final int SO_REUSEADDR = 2;
  static final int SO_SNDBUF = 7;
  static final int SO_RCVBUF = 8;
  static final int SHUT_RDWR = 2;
  static final int MSG_NOSIGNAL = 0x4000;
  static final int EINTR = 4;
  static final int EBADF = 9;
  static final int EINVAL = 22;
  static final int ECONNABORTED = 103;
  static final int ECONNREFUSED = 111;

  private static final Linker LINKER = Linker.nativeLinker();
  private static final SymbolLookup LIBC = LINKER.defaultLookup();
  // Functions are bound as a C program's calls are: to the first definition in the process's global scope,
  // dlsym(RTLD_DEFAULT, name), which is libc's unless a preloaded library comes first (the harness preloads its
  // send/recv counter into every worker). defaultLookup() alone finds libc's own and would bypass it.
  private static final MethodHandle DLSYM = LINKER.downcallHandle(
      LIBC.find("dlsym").orElseThrow(() -> new IllegalStateException("libc has no dlsym")),
      FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
  private static final StructLayout CAPTURED = Linker.Option.captureStateLayout();
  private static final VarHandle ERRNO = CAPTURED.varHandle(MemoryLayout.PathElement.groupElement("errno"));

  private static final MethodHandle SOCKET = errnoCall("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
  private static final MethodHandle CONNECT = errnoCall("connect", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
  private static final MethodHandle BIND = errnoCall("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
  private static final MethodHandle LISTEN = errnoCall("listen", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
  private static final MethodHandle ACCEPT = errnoCall("accept", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
  private static final MethodHandle SETSOCKOPT =
      errnoCall("setsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
  private static final MethodHandle GETSOCKNAME =
      errnoCall("getsockname", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
  private static final MethodHandle SEND = errnoCall("send", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
  private static final MethodHandle RECV = errnoCall("recv", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
  private static final MethodHandle SHUTDOWN = plainCall("shutdown", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
  private static final MethodHandle CLOSE = plainCall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
  private static final MethodHandle STRERROR = plainCall("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

  private LibcSockets() {}

  private static MethodHandle errnoCall(String name, FunctionDescriptor descriptor) {
    return LINKER.downcallHandle(symbol(name), descriptor, Linker.Option.captureCallState("errno"));
  }

  private static MethodHandle plainCall(String name, FunctionDescriptor descriptor) {
    return LINKER.downcallHandle(symbol(name), descriptor);
  }

  private static MemorySegment symbol(String name) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment found = (MemorySegment) DLSYM.invokeExact(MemorySegment.NULL, arena.allocateFrom(name));
      if (found.address() != 0) {
        return found;
      }
    } catch (Throwable t) {
      throw new IllegalStateException("dlsym(" + name + "): " + t, t);
    }
    return LIBC.find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name));
  }

  /** A segment to capture errno into; one per thread that makes calls. */
  static MemorySegment errnoSegment(Arena arena) {
    return arena.allocate(CAPTURED);
  }

  static int errno(MemorySegment state) {
    return (int) ERRNO.get(state, 0L);
  }

  static IOException failure(String call, int errno) {
    String message;
    try {
      message = ((MemorySegment) STRERROR.invokeExact(errno)).reinterpret(256).getString(0);
    } catch (Throwable t) {
      message = "errno " + errno;
    }
    return new IOException(call + ": " + message);
  }

  static int socket(MemorySegment state, int family, int type, int protocol) throws Throwable {
    return (int) SOCKET.invokeExact(state, family, type, protocol);
  }

  static int connect(MemorySegment state, int fd, MemorySegment address, int length) throws Throwable {
    return (int) CONNECT.invokeExact(state, fd, address, length);
  }

  static int bind(MemorySegment state, int fd, MemorySegment address, int length) throws Throwable {
    return (int) BIND.invokeExact(state, fd, address, length);
  }

  static int listen(MemorySegment state, int fd, int backlog) throws Throwable {
    return (int) LISTEN.invokeExact(state, fd, backlog);
  }

  static int accept(MemorySegment state, int fd) throws Throwable {
    return (int) ACCEPT.invokeExact(state, fd, MemorySegment.NULL, MemorySegment.NULL);
  }

  static int setIntOption(MemorySegment state, int fd, int level, int option, MemorySegment intValue) throws Throwable {
    return (int) SETSOCKOPT.invokeExact(state, fd, level, option, intValue, 4);
  }

  static int getsockname(MemorySegment state, int fd, MemorySegment address, MemorySegment length) throws Throwable {
    return (int) GETSOCKNAME.invokeExact(state, fd, address, length);
  }

  static long send(MemorySegment state, int fd, MemorySegment bytes, long length, int flags) throws Throwable {
    return (long) SEND.invokeExact(state, fd, bytes, length, flags);
  }

  static long recv(MemorySegment state, int fd, MemorySegment into, long length, int flags) throws Throwable {
    return (long) RECV.invokeExact(state, fd, into, length, flags);
  }

  static void shutdown(int fd) throws Throwable {
    int ignored = (int) SHUTDOWN.invokeExact(fd, SHUT_RDWR);
  }

  static void close(int fd) throws Throwable {
    int ignored = (int) CLOSE.invokeExact(fd);
  }
}
