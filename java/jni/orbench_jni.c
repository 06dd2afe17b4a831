/* The java-jni baselines' socket calls: org.orbench.socket.NativeSockets, one C function per native method.
 * Plain blocking POSIX sockets, as the C baseline uses them; errors become java.io.IOException with
 * strerror(errno). The byte[] variants copy through a per-thread native buffer (GetByteArrayRegion /
 * SetByteArrayRegion): the copy the seed papers warn JNI can force. The direct variants pass a direct
 * ByteBuffer's memory to the kernel as it is. */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "org_orbench_socket_NativeSockets.h"

/* Per-thread buffer for the byte[] copies; grows, never shrinks (one connection per thread). */
static __thread char *copy_buffer;
static __thread size_t copy_capacity;

static void throw_io(JNIEnv *env, const char *what, int error) {
  char message[256];
  snprintf(message, sizeof message, "%s: %s", what, strerror(error));
  jclass io = (*env)->FindClass(env, "java/io/IOException");
  if (io != NULL) {
    (*env)->ThrowNew(env, io, message);
  }
}

static char *copy_space(JNIEnv *env, size_t length) {
  if (length > copy_capacity) {
    size_t capacity = length > 2 * copy_capacity ? length : 2 * copy_capacity;
    char *grown = realloc(copy_buffer, capacity);
    if (grown == NULL) {
      throw_io(env, "native copy buffer", ENOMEM);
      return NULL;
    }
    copy_buffer = grown;
    copy_capacity = capacity;
  }
  return copy_buffer;
}

static int set_nodelay(int fd, int on) { return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on); }

/* SO_SNDBUF and SO_RCVBUF, before connect or bind (0: the OS default). */
static int set_buffers(int fd, int bytes) {
  if (bytes <= 0) {
    return 0;
  }
  return setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes) | setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
}

/* getaddrinfo for host:port; the caller frees the list. NULL after throwing. */
static struct addrinfo *resolve(JNIEnv *env, jstring host, jint port, int passive) {
  const char *name = (*env)->GetStringUTFChars(env, host, NULL);
  if (name == NULL) {
    return NULL;
  }
  char service[16];
  snprintf(service, sizeof service, "%d", (int)port);
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = passive ? AI_PASSIVE : 0};
  struct addrinfo *found = NULL;
  int rc = getaddrinfo(name, service, &hints, &found);
  if (rc != 0) {
    char message[300];
    snprintf(message, sizeof message, "cannot resolve %s: %s", name, gai_strerror(rc));
    jclass unknown = (*env)->FindClass(env, "java/net/UnknownHostException");
    if (unknown != NULL) {
      (*env)->ThrowNew(env, unknown, message);
    }
    found = NULL;
  }
  (*env)->ReleaseStringUTFChars(env, host, name);
  return found;
}

JNIEXPORT jint JNICALL Java_org_orbench_socket_NativeSockets_connect(JNIEnv *env, jclass cls, jstring host, jint port,
                                                                     jboolean nodelay, jint buffer_bytes) {
  (void)cls;
  struct addrinfo *found = resolve(env, host, port, 0);
  if (found == NULL) {
    return -1;
  }
  int error = 0;
  for (struct addrinfo *a = found; a != NULL; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      error = errno;
      continue;
    }
    if (set_nodelay(fd, nodelay ? 1 : 0) == 0 && set_buffers(fd, buffer_bytes) == 0 &&
        connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      freeaddrinfo(found);
      return fd;
    }
    error = errno;
    close(fd);
  }
  freeaddrinfo(found);
  jclass refused = (*env)->FindClass(env, "java/net/ConnectException");
  if (refused != NULL) {
    (*env)->ThrowNew(env, refused, strerror(error));
  }
  return -1;
}

JNIEXPORT jint JNICALL Java_org_orbench_socket_NativeSockets_listen(JNIEnv *env, jclass cls, jstring host, jint port,
                                                                    jint backlog, jint buffer_bytes) {
  (void)cls;
  struct addrinfo *found = resolve(env, host, port, 1);
  if (found == NULL) {
    return -1;
  }
  int fd = socket(found->ai_family, found->ai_socktype | SOCK_CLOEXEC, found->ai_protocol);
  int one = 1;
  if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 || set_buffers(fd, buffer_bytes) != 0 ||
      bind(fd, found->ai_addr, found->ai_addrlen) != 0 || listen(fd, backlog) != 0) {
    int error = errno;
    if (fd >= 0) {
      close(fd);
    }
    freeaddrinfo(found);
    throw_io(env, "listen", error);
    return -1;
  }
  freeaddrinfo(found);
  return fd;
}

JNIEXPORT jint JNICALL Java_org_orbench_socket_NativeSockets_localPort(JNIEnv *env, jclass cls, jint fd) {
  (void)cls;
  struct sockaddr_storage address;
  socklen_t length = sizeof address;
  if (getsockname(fd, (struct sockaddr *)&address, &length) != 0) {
    throw_io(env, "getsockname", errno);
    return -1;
  }
  return address.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&address)->sin6_port)
                                       : ntohs(((struct sockaddr_in *)&address)->sin_port);
}

JNIEXPORT jint JNICALL Java_org_orbench_socket_NativeSockets_accept(JNIEnv *env, jclass cls, jint listen_fd,
                                                                    jboolean nodelay) {
  (void)cls;
  for (;;) {
    int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd >= 0) {
      set_nodelay(fd, nodelay ? 1 : 0);
      return fd;
    }
    if (errno == EINTR || errno == ECONNABORTED) {
      continue;
    }
    if (errno == EINVAL || errno == EBADF) { /* shut down by NativeSockets.shutdown: the server stops */
      return -1;
    }
    throw_io(env, "accept", errno);
    return -1;
  }
}

static void send_all(JNIEnv *env, int fd, const char *bytes, size_t length) {
  while (length > 0) {
    ssize_t n = send(fd, bytes, length, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw_io(env, "send", errno);
      return;
    }
    bytes += n;
    length -= (size_t)n;
  }
}

/* One recv(): the count, -1 at EOF, -2 after throwing. */
static ssize_t receive_once(JNIEnv *env, int fd, char *into, size_t length) {
  for (;;) {
    ssize_t n = recv(fd, into, length, 0);
    if (n > 0) {
      return n;
    }
    if (n == 0) {
      return -1;
    }
    if (errno != EINTR) {
      throw_io(env, "recv", errno);
      return -2;
    }
  }
}

JNIEXPORT void JNICALL Java_org_orbench_socket_NativeSockets_sendArray(JNIEnv *env, jclass cls, jint fd,
                                                                       jbyteArray bytes, jint offset, jint length) {
  (void)cls;
  char *space = copy_space(env, (size_t)length);
  if (space == NULL) {
    return;
  }
  (*env)->GetByteArrayRegion(env, bytes, offset, length, (jbyte *)space);
  if ((*env)->ExceptionCheck(env)) {
    return;
  }
  send_all(env, fd, space, (size_t)length);
}

JNIEXPORT jint JNICALL Java_org_orbench_socket_NativeSockets_receiveArray(JNIEnv *env, jclass cls, jint fd,
                                                                          jbyteArray bytes, jint offset, jint length) {
  (void)cls;
  char *space = copy_space(env, (size_t)length);
  if (space == NULL) {
    return -1;
  }
  ssize_t n = receive_once(env, fd, space, (size_t)length);
  if (n > 0) {
    (*env)->SetByteArrayRegion(env, bytes, offset, (jsize)n, (const jbyte *)space);
  }
  return n == -2 ? -1 : (jint)n;
}

static char *direct_address(JNIEnv *env, jobject buffer, jint offset, jint length) {
  char *base = (*env)->GetDirectBufferAddress(env, buffer);
  jlong capacity = (*env)->GetDirectBufferCapacity(env, buffer);
  if (base == NULL || offset < 0 || length < 0 || (jlong)offset + length > capacity) {
    throw_io(env, "not a direct buffer, or range outside it", EINVAL);
    return NULL;
  }
  return base + offset;
}

JNIEXPORT void JNICALL Java_org_orbench_socket_NativeSockets_sendDirect(JNIEnv *env, jclass cls, jint fd,
                                                                        jobject buffer, jint offset, jint length) {
  (void)cls;
  char *bytes = direct_address(env, buffer, offset, length);
  if (bytes != NULL) {
    send_all(env, fd, bytes, (size_t)length);
  }
}

JNIEXPORT jint JNICALL Java_org_orbench_socket_NativeSockets_receiveDirect(JNIEnv *env, jclass cls, jint fd,
                                                                           jobject buffer, jint offset, jint length) {
  (void)cls;
  char *into = direct_address(env, buffer, offset, length);
  if (into == NULL) {
    return -1;
  }
  ssize_t n = receive_once(env, fd, into, (size_t)length);
  return n == -2 ? -1 : (jint)n;
}

JNIEXPORT void JNICALL Java_org_orbench_socket_NativeSockets_shutdown(JNIEnv *env, jclass cls, jint fd) {
  (void)env;
  (void)cls;
  shutdown(fd, SHUT_RDWR);
}

JNIEXPORT void JNICALL Java_org_orbench_socket_NativeSockets_close(JNIEnv *env, jclass cls, jint fd) {
  (void)env;
  (void)cls;
  close(fd);
}
