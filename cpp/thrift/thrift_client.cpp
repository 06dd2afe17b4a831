// orbench-thrift-client: the client worker of the thrift-cpp targets, a binding of IdlClient (idl_client.hpp)
// on the BenchClient the thrift compiler makes from the translator's Thrift IDL: Thrift's binary protocol over
// the transport --transport names (thrift_transport.hpp) on a TSocket. IDL oneways are Thrift's own oneways: the
// call returns once the request is written and flushed. TCP_NODELAY is Thrift's (on) unless connect says false.
#include <thrift/TApplicationException.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TSocket.h>

#include "Bench.h"
#include "endpoint_url.hpp"
#include "idl_client.hpp"
#include "payload_values.hpp"
#include "thrift_transport.hpp"

namespace orbench {

using apache::thrift::TApplicationException;
using apache::thrift::TException;
using apache::thrift::transport::TTransportException;

struct ThriftBinding {
  using Payloads = std::tuple<Octets, Records, Longs, Doubles, Strings>;
  using Ref = BenchClient*;
  static constexpr bool kObjects = false;  // a Thrift server is one service, no objects
  // A BenchClient owns one connection and its buffers: two threads' calls on it would interleave their bytes.
  static constexpr bool kThreads = false;
  ThriftTransport kind = ThriftTransport::buffered;
  std::shared_ptr<apache::thrift::transport::TTransport> transport;
  std::unique_ptr<BenchClient> client;

  // Takes `--transport NAME` out of the arguments.
  explicit ThriftBinding(std::vector<std::string>& args) {
    for (size_t i = 1; i + 1 < args.size(); ++i) {
      if (args[i] != "--transport") continue;
      try {
        kind = thrift_transport(args[i + 1]);
      } catch (const std::invalid_argument& e) {
        throw WorkerError(ErrorKind::usage, e.what());
      }
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
      break;
    }
  }
  ~ThriftBinding() { disconnect(); }

  template <class Body>
  static auto guarded(const char* what, Body&& body) {
    try {
      return body();
    } catch (const TTransportException& e) {
      throw WorkerError(ErrorKind::transport, std::string(what) + ": Thrift: " + e.what());
    } catch (const TApplicationException& e) {
      throw WorkerError(ErrorKind::remote, std::string(what) + ": Thrift: " + e.what());
    } catch (const TException& e) {
      throw WorkerError(ErrorKind::transport, std::string(what) + ": Thrift: " + e.what());
    }
  }

  static MiddlewareInfo info() { return {"thrift-cpp", "Apache Thrift", PACKAGE_VERSION}; }

  void connect(const std::string& endpoint, const ConnectOptions& options) {
    if (options.socket_buffer_bytes || options.sync_scope) {
      throw WorkerError(ErrorKind::unsupported, "Thrift's TSocket sets TCP_NODELAY only (no socket buffer sizes, "
                                                "no sync scope: a Thrift oneway returns once it is written)");
    }
    const UrlEndpoint at = parse_endpoint_url("thrift", endpoint);
    disconnect();
    auto socket = std::make_shared<apache::thrift::transport::TSocket>(at.host, at.port);
    socket->setNoDelay(options.tcp_nodelay.value_or(true));
    auto wrapped = transport_factory(kind)->getTransport(socket);
    guarded("connect", [&] { wrapped->open(); });
    transport = wrapped;
    client = std::make_unique<BenchClient>(std::make_shared<apache::thrift::protocol::TBinaryProtocol>(transport));
  }
  void disconnect() {
    client.reset();
    if (transport) {
      try {
        transport->close();
      } catch (const TException&) {
        // Closing a connection that is already broken: nothing left to do.
      }
      transport.reset();
    }
  }
  bool connected() const { return client != nullptr; }
  Ref target(Mode, size_t) const { return client.get(); }

  void reset_counters() { client->reset_counters(); }
  void shutdown() { client->shutdown(); }
  Counts counters() {
    Counters c;
    client->counters(c);
    return {static_cast<uint64_t>(c.messages), static_cast<uint64_t>(c.bytes)};
  }
  SyncOutcome sync(uint64_t expected, uint32_t timeout_ms) {
    SyncResult r;
    client->sync(r, static_cast<int64_t>(expected), static_cast<int64_t>(timeout_ms));
    return {r.complete, {static_cast<uint64_t>(r.received.messages), static_cast<uint64_t>(r.received.bytes)}};
  }

  template <PayloadType T, class P>
  static void fill(P& payload, uint64_t count) { payload.resize(count), payload::fill_indexed<T>(payload, count); }
  template <PayloadType T, class P>
  static bool same(const P& reply, const P& request) { return reply == request; }
  template <PayloadType T, class P, class Pick>
  auto oneway(const P& p, Pick pick, uint32_t) { return [&p, pick](uint64_t i) { call_push<T>(*pick(i), p); }; }
  template <PayloadType T, class P, class Pick>
  auto twoway(const P& p, Pick pick, uint32_t) { return [&p, pick](uint64_t i) { call_send<T>(*pick(i), p); }; }
  // Thrift's C++ echo fills a reply the caller owns: one, reused, as the gRPC client does.
  template <PayloadType T, class P, class Pick>
  auto echo(const P& p, Pick pick, uint32_t) {
    return [&p, pick, reply = P()](uint64_t i) mutable {
      call_echo<T>(*pick(i), reply, p);
      return &std::as_const(reply);
    };
  }

};

}  // namespace orbench

int main(int argc, char** argv) { return orbench::idl_client_main<orbench::ThriftBinding>(argc, argv); }
