// The OBSK wire format and the socket reader: header round trip, rejection of bad headers, endpoints, and
// MessageReader over a real socket pair with messages split and coalesced the way TCP may deliver them.
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "check.hpp"
#include "socket_io.hpp"
#include "wire.hpp"

using namespace orbench;

static void header_round_trip() {
  uint8_t bytes[wire::kHeaderBytes];
  wire::encode_header(bytes, wire::ECHO, 0x01020304);
  const uint8_t expected[] = {'O', 'B', 'S', 'K', 1, 0, 1, 3, 0x04, 0x03, 0x02, 0x01};
  CHECK(std::memcmp(bytes, expected, sizeof expected) == 0);
  wire::Header header;
  CHECK(wire::decode_header(bytes, header));
  CHECK(header.kind == wire::ECHO);
  CHECK(header.body_bytes == 0x01020304u);

  bytes[0] = 'X';
  CHECK(!wire::decode_header(bytes, header));
  wire::encode_header(bytes, wire::ECHO, 1);
  bytes[4] = 2;  // unknown version
  CHECK(!wire::decode_header(bytes, header));
  wire::encode_header(bytes, wire::ECHO, 1);
  bytes[6] = 0;  // big-endian flag: never sent by a conforming peer
  CHECK(!wire::decode_header(bytes, header));
}

static void integers_are_little_endian() {
  uint8_t bytes[12];
  wire::put_u64(bytes, 0x0102030405060708ull);
  CHECK(bytes[0] == 0x08 && bytes[7] == 0x01);
  CHECK(wire::get_u64(bytes) == 0x0102030405060708ull);
  wire::encode_preamble(bytes, 7, wire::STATUS_ERROR);
  CHECK(wire::get_u32(bytes) == 7u && wire::get_u32(bytes + 4) == 1u && wire::get_u32(bytes + 8) == 0u);
  // An empty twoway reply is as long as GIOP's: 12-byte header + 12-byte preamble.
  CHECK(wire::kHeaderBytes + wire::kPreambleBytes == 24);
}

static void endpoints() {
  CHECK(format_tcp_endpoint("127.0.0.1", 4242) == "tcp://127.0.0.1:4242");
  CHECK(format_tcp_endpoint("::1", 80) == "tcp://[::1]:80");
  const HostPort v4 = parse_tcp_endpoint("tcp://127.0.0.1:4242");
  CHECK(v4.host == "127.0.0.1" && v4.port == 4242);
  const HostPort v6 = parse_tcp_endpoint("tcp://[::1]:80");
  CHECK(v6.host == "::1" && v6.port == 80);
  for (const char* bad : {"127.0.0.1:1", "tcp://host", "tcp://host:", "tcp://host:99999", "tcp://host:1x"}) {
    bool rejected = false;
    try {
      parse_tcp_endpoint(bad);
    } catch (const std::invalid_argument&) {
      rejected = true;
    }
    CHECK(rejected);
  }
}

static std::vector<uint8_t> message(uint8_t kind, size_t body_bytes) {
  std::vector<uint8_t> bytes(wire::kHeaderBytes + body_bytes);
  wire::encode_header(bytes.data(), kind, static_cast<uint32_t>(body_bytes));
  for (size_t i = 0; i < body_bytes; ++i) bytes[wire::kHeaderBytes + i] = static_cast<uint8_t>(i & 0xff);
  return bytes;
}

static void reader_over_socket_pair() {
  int fds[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  // Three messages in one write, then one split in the middle of its header, then one bigger than the
  // reader's initial buffer (it must grow), then EOF.
  std::vector<uint8_t> stream;
  for (size_t size : {0, 5, 1024}) {
    const auto m = message(wire::ONEWAY, size);
    stream.insert(stream.end(), m.begin(), m.end());
  }
  CHECK(send_all(fds[0], stream.data(), stream.size()) == 0);
  const auto split = message(wire::TWOWAY, 3);
  CHECK(send_all(fds[0], split.data(), 5) == 0);

  MessageReader reader(64);  // small on purpose
  wire::Header header;
  uint8_t* body = nullptr;
  for (size_t size : {0, 5, 1024}) {
    CHECK(reader.next(fds[1], header, body) == MessageReader::Result::message);
    CHECK(header.kind == wire::ONEWAY && header.body_bytes == size);
    if (size == 1024) CHECK(body[0] == 0 && body[255] == 255 && body[1023] == 0xff);
  }
  CHECK(send_all(fds[0], split.data() + 5, split.size() - 5) == 0);
  CHECK(reader.next(fds[1], header, body) == MessageReader::Result::message);
  CHECK(header.kind == wire::TWOWAY && header.body_bytes == 3 && body[2] == 2);

  const auto big = message(wire::ECHO, 100000);
  CHECK(send_all(fds[0], big.data(), big.size()) == 0);
  CHECK(reader.next(fds[1], header, body) == MessageReader::Result::message);
  CHECK(header.body_bytes == 100000 && std::memcmp(body, big.data() + wire::kHeaderBytes, 100000) == 0);

  close(fds[0]);
  CHECK(reader.next(fds[1], header, body) == MessageReader::Result::eof);
  close(fds[1]);
}

// A reader with headroom: the bytes in front of every message's body (its header and `headroom` more) may be
// overwritten, as the C socket server does to build an echo reply in place, without touching the messages
// still to be read, including when the buffer is compacted or grown.
static void reader_headroom_is_writable() {
  int fds[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  std::vector<uint8_t> stream;
  for (size_t size : {0, 5, 40, 1024, 7}) {
    const auto m = message(wire::ECHO, size);
    stream.insert(stream.end(), m.begin(), m.end());
  }
  CHECK(send_all(fds[0], stream.data(), stream.size()) == 0);
  MessageReader reader(64, wire::kPreambleBytes);
  wire::Header header;
  uint8_t* body = nullptr;
  for (size_t size : {0, 5, 40, 1024, 7}) {
    CHECK(reader.next(fds[1], header, body) == MessageReader::Result::message);
    CHECK(header.kind == wire::ECHO && header.body_bytes == size);
    for (size_t i = 0; i < size; ++i) CHECK(body[i] == static_cast<uint8_t>(i & 0xff));
    std::memset(body - wire::kHeaderBytes - wire::kPreambleBytes, 0xee, wire::kHeaderBytes + wire::kPreambleBytes);
  }
  close(fds[0]);
  CHECK(reader.next(fds[1], header, body) == MessageReader::Result::eof);
  close(fds[1]);
}

static int unread_bytes(int fd) {
  int unread = -1;
  CHECK(ioctl(fd, FIONREAD, &unread) == 0);
  return unread;
}

// How much one read takes: a burst of small messages comes in with one call, while a large message is read to
// its own end and no further (a partial message left at the end of the buffer would be moved by the next read).
static void reader_reads_small_messages_in_bulk_and_large_ones_exactly() {
  int fds[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  const int buffer_bytes = 1 << 20;
  for (int fd : fds) {
    CHECK(setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer_bytes, sizeof buffer_bytes) == 0);
    CHECK(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer_bytes, sizeof buffer_bytes) == 0);
  }
  MessageReader reader;
  wire::Header header;
  uint8_t* body = nullptr;

  std::vector<uint8_t> small;
  for (int i = 0; i < 50; ++i) {
    const auto m = message(wire::ONEWAY, 100);
    small.insert(small.end(), m.begin(), m.end());
  }
  CHECK(send_all(fds[0], small.data(), small.size()) == 0);
  CHECK(reader.next(fds[1], header, body) == MessageReader::Result::message);
  CHECK(unread_bytes(fds[1]) == 0);  // all 50 came in with the first read
  for (int i = 1; i < 50; ++i) CHECK(reader.next(fds[1], header, body) == MessageReader::Result::message);

  const size_t large = 40000;
  const auto m = message(wire::ONEWAY, large);
  std::vector<uint8_t> three;
  for (int i = 0; i < 3; ++i) three.insert(three.end(), m.begin(), m.end());
  CHECK(send_all(fds[0], three.data(), three.size()) == 0);
  for (int left = 2; left >= 0; --left) {
    CHECK(reader.next(fds[1], header, body) == MessageReader::Result::message);
    CHECK(header.body_bytes == large && body[large - 1] == static_cast<uint8_t>((large - 1) & 0xff));
    CHECK(unread_bytes(fds[1]) == left * static_cast<int>(m.size()));
  }
  close(fds[0]);
  close(fds[1]);
}

static void reader_rejects_garbage() {
  int fds[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  const uint8_t garbage[12] = {'G', 'I', 'O', 'P', 1, 2, 1, 0, 0, 0, 0, 0};
  CHECK(send_all(fds[0], garbage, sizeof garbage) == 0);
  MessageReader reader;
  wire::Header header;
  uint8_t* body = nullptr;
  CHECK(reader.next(fds[1], header, body) == MessageReader::Result::bad_header);
  close(fds[0]);
  close(fds[1]);
}

// has_message() says whether next() can return without reading the socket (the serial server asks it, since
// epoll no longer reports bytes already read): a whole message, or a bad header, in the buffer.
static void reader_says_when_a_message_is_buffered() {
  int fds[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  MessageReader reader;
  CHECK(!reader.has_message());
  // Two messages and half a third arrive together: the first next() reads them all.
  std::vector<uint8_t> stream;
  for (size_t size : {7, 9}) {
    const auto m = message(wire::TWOWAY, size);
    stream.insert(stream.end(), m.begin(), m.end());
  }
  const auto third = message(wire::ECHO, 20);
  stream.insert(stream.end(), third.begin(), third.begin() + 16);
  CHECK(send_all(fds[0], stream.data(), stream.size()) == 0);
  wire::Header header;
  uint8_t* body = nullptr;
  CHECK(reader.next(fds[1], header, body) == MessageReader::Result::message && header.body_bytes == 7);
  CHECK(reader.has_message());   // the second is whole in the buffer
  CHECK(reader.next(fds[1], header, body) == MessageReader::Result::message && header.body_bytes == 9);
  CHECK(!reader.has_message());  // the third's header, but not its body
  CHECK(send_all(fds[0], third.data() + 16, third.size() - 16) == 0);
  CHECK(!reader.has_message());  // its rest is in the kernel, not yet read
  CHECK(reader.next(fds[1], header, body) == MessageReader::Result::message && header.body_bytes == 20);
  const uint8_t garbage[12] = {'G', 'I', 'O', 'P', 1, 2, 1, 0, 0, 0, 0, 0};
  CHECK(send_all(fds[0], garbage, sizeof garbage) == 0);
  CHECK(reader.next(fds[1], header, body) == MessageReader::Result::bad_header);
  CHECK(reader.has_message());   // next() answers bad_header again without a read
  close(fds[0]);
  close(fds[1]);
}

int main() {
  header_round_trip();
  integers_are_little_endian();
  endpoints();
  reader_over_socket_pair();
  reader_headroom_is_writable();
  reader_reads_small_messages_in_bulk_and_large_ones_exactly();
  reader_rejects_garbage();
  reader_says_when_a_message_is_buffered();
  return orbench_test::finish("test_wire");
}
