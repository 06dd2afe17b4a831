/* orbench-c-pingpong: the reference of `orbench fidelity`'s C socket rows, written as plainly as a user would,
 * sharing nothing with orbench's c-socket worker. A request is a 12-byte header (kind, 0, payload length) and
 * the payload, written with one send(); a reply is 24 bytes, the size of c-socket's reply header and preamble.
 *
 *   orbench-c-pingpong server HOST PORT
 *       serves one connection after another until its stdin closes
 *   orbench-c-pingpong client HOST PORT twoway|oneway PAYLOAD_BYTES CALLS WARMUP SAMPLES_FILE
 *       WARMUP untimed, then CALLS timed calls; one little-endian int64 (ns) per timed call to SAMPLES_FILE.
 *       oneway: a FLUSH request after the calls; prints the receiver's messages/s from the first timed call
 *       to the FLUSH's reply (all oneways were read by then: one connection keeps their order).
 *   orbench-c-pingpong slices HOST PORT twoway|oneway
 *       one connection; for each stdin line "PAYLOAD_BYTES CALLS WARMUP SAMPLES_FILE" the run above on it,
 *       then "done" on stdout.
 * Buffers come from aligned_alloc(4096): the kernel's receive copy runs several times slower into a buffer a few
 * bytes ahead of the sender's page offset (cpp/csocket/socket_io.hpp); the reference is the fast case. */
#define _GNU_SOURCE
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { TWOWAY = 1, ONEWAY = 2, FLUSH = 3 };

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int read_exactly(int fd, void *buffer, size_t length) {
  char *p = buffer;
  while (length > 0) {
    ssize_t got = recv(fd, p, length, 0);
    if (got <= 0) return -1;
    p += got;
    length -= (size_t)got;
  }
  return 0;
}

static int write_all(int fd, const void *buffer, size_t length) {
  const char *p = buffer;
  while (length > 0) {
    ssize_t sent = send(fd, p, length, MSG_NOSIGNAL);
    if (sent <= 0) return -1;
    p += sent;
    length -= (size_t)sent;
  }
  return 0;
}

static int open_socket(const char *host, const char *port, int listening) {
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = listening ? AI_PASSIVE : 0}, *ai;
  if (getaddrinfo(host, port, &hints, &ai) != 0) return -1;
  int fd = socket(ai->ai_family, SOCK_STREAM, 0), on = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  int ok = listening ? bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 4) == 0
                     : connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
  freeaddrinfo(ai);
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  return ok ? fd : -1;
}

/* Serves one connection as orbench's socket baselines read (PROTOCOL.md, "How a socket baseline reads and
 * writes"), so that a fidelity row compares the same calls: each recv() asks for what has arrived, up to 16 KB or
 * the last message's size if larger, and the messages are cut out of the buffer; a message known to be larger is
 * read exactly to its end. */
enum { BULK = 16 * 1024, CAPACITY = 2 << 20 };

static void serve_connection(int fd, char *buffer) {
  static const char reply[24];
  size_t begin = 0, end = 0, last = 0;
  for (;;) {
    uint32_t header[3] = {0, 0, 0};
    while (end - begin >= 12) {
      memcpy(header, buffer + begin, 12);
      if (header[2] > CAPACITY - 12) return;
      if (end - begin < 12 + (size_t)header[2]) break;
      begin += last = 12 + (size_t)header[2];
      if (header[0] != ONEWAY && write_all(fd, reply, sizeof reply) != 0) return;
    }
    if (begin == end) begin = end = 0;
    size_t message_end = begin + 12 + header[2], bulk = last > BULK ? last : BULK;
    int large = end - begin >= 12 && message_end - begin > BULK;
    if (large ? message_end > CAPACITY : end + bulk > CAPACITY) {  /* a partial message to the front */
      memmove(buffer, buffer + begin, end - begin);
      end -= begin, message_end -= begin, begin = 0;
    }
    ssize_t got = recv(fd, buffer + end, large ? message_end - end : bulk, 0);
    if (got <= 0) return;
    end += (size_t)got;
  }
}

static int serve(const char *host, const char *port) {
  int listener = open_socket(host, port, 1);
  if (listener < 0) return perror("listen"), 1;
  char *buffer = aligned_alloc(4096, CAPACITY);
  for (;;) {
    struct pollfd ready[2] = {{.fd = listener, .events = POLLIN}, {.fd = STDIN_FILENO, .events = POLLIN}};
    poll(ready, 2, -1);
    if (ready[1].revents) return 0;  /* stdin readable or closed: whoever started us is done */
    int fd = accept(listener, NULL, NULL), on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    serve_connection(fd, buffer);
    close(fd);
  }
}

/* One run on an open connection: WARMUP untimed calls, then CALLS timed ones, their samples to SAMPLES_PATH. */
static int run(int fd, int oneway, size_t payload_bytes, size_t calls, size_t warmup, const char *samples_path) {
  char *request = aligned_alloc(4096, 12 + payload_bytes + 4096);
  uint32_t header[3] = {oneway ? ONEWAY : TWOWAY, 0, (uint32_t)payload_bytes}, flush[3] = {FLUSH, 0, 0};
  memcpy(request, header, 12);
  for (size_t i = 0; i < payload_bytes; ++i) request[12 + i] = (char)i;
  int64_t *samples = calloc(calls, sizeof *samples);
  char reply[24];
  int64_t first = 0;
  for (size_t i = 0; i < warmup + calls; ++i) {
    if (i == warmup) {  /* the oneway warm-up is read before timing starts */
      if (oneway && (write_all(fd, flush, 12) != 0 || read_exactly(fd, reply, 24) != 0)) return 1;
      first = now_ns();
    }
    int64_t before = now_ns();
    if (write_all(fd, request, 12 + payload_bytes) != 0) return perror("send"), 1;
    if (!oneway && read_exactly(fd, reply, sizeof reply) != 0) return perror("recv"), 1;
    if (i >= warmup) samples[i - warmup] = now_ns() - before;
  }
  if (oneway) {
    if (write_all(fd, flush, 12) != 0 || read_exactly(fd, reply, 24) != 0) return 1;
    printf("receiver_msgs_per_s %.1f\n", calls * 1e9 / (double)(now_ns() - first));
  }
  FILE *out = fopen(samples_path, "wb");
  if (out == NULL || fwrite(samples, sizeof *samples, calls, out) != calls || fclose(out) != 0) {
    return fprintf(stderr, "orbench-c-pingpong: cannot write %s\n", samples_path), 1;
  }
  free(request);
  free(samples);
  return 0;
}

static int call(const char *host, const char *port, char **argv) {
  int fd = open_socket(host, port, 0);
  if (fd < 0) return perror("connect"), 1;
  return run(fd, strcmp(argv[0], "oneway") == 0, strtoul(argv[1], NULL, 10), strtoul(argv[2], NULL, 10),
             strtoul(argv[3], NULL, 10), argv[4]);
}

/* One connection, one run per line of stdin ("PAYLOAD_BYTES CALLS WARMUP SAMPLES_FILE"), each answered with
 * "done" once its samples are written: the harness alternates these runs with its own worker's trials. */
static int slices(const char *host, const char *port, const char *mode) {
  int fd = open_socket(host, port, 0);
  if (fd < 0) return perror("connect"), 1;
  size_t payload_bytes, calls, warmup;
  char path[4096];
  while (scanf("%zu %zu %zu %4095s", &payload_bytes, &calls, &warmup, path) == 4) {
    if (run(fd, strcmp(mode, "oneway") == 0, payload_bytes, calls, warmup, path) != 0) return 1;
    printf("done\n");
    fflush(stdout);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "server") == 0) return serve(argv[2], argv[3]);
  if (argc == 9 && strcmp(argv[1], "client") == 0) return call(argv[2], argv[3], argv + 4);
  if (argc == 5 && strcmp(argv[1], "slices") == 0) return slices(argv[2], argv[3], argv[4]);
  fprintf(stderr, "usage: orbench-c-pingpong server HOST PORT\n"
                  "       orbench-c-pingpong client HOST PORT twoway|oneway PAYLOAD_BYTES CALLS WARMUP SAMPLES_FILE\n"
                  "       orbench-c-pingpong slices HOST PORT twoway|oneway\n");
  return 2;
}
