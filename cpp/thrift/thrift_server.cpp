// orbench-thrift-server: the server worker of the thrift-cpp targets (PROTOCOL.md, "Server worker"), on the
// server kit (server_kit.hpp). The Bench service of the Thrift IDL the translator writes, on Thrift's
// TThreadedServer (a thread per connection) with its binary protocol, over the transport --transport names:
// buffered (Thrift's default, as shipped) or framed. TCP_NODELAY is Thrift's (on); --option tcp_nodelay=false
// turns it off on every accepted socket.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <thrift/TApplicationException.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/server/TThreadedServer.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TServerSocket.h>

#include "Bench.h"
#include "endpoint_url.hpp"
#include "server_kit.hpp"
#include "thrift_transport.hpp"

namespace orbench {
namespace {

using apache::thrift::server::TServerEventHandler;
using apache::thrift::server::TThreadedServer;
using apache::thrift::transport::TServerSocket;
using P = PayloadType;

Counters to_thrift(const Counts& c) {
  Counters out;
  out.messages = static_cast<int64_t>(c.messages);
  out.bytes = static_cast<int64_t>(c.bytes);
  return out;
}

class BenchHandler final : public BenchIf {
 public:
  explicit BenchHandler(BenchCore& core) : core_(core) {}

  void push(const Octets& d) override { core_.count<P::octets>(d); }
  void push_records(const Records& d) override { core_.count<P::records>(d); }
  void push_longs(const Longs& d) override { core_.count<P::longs>(d); }
  void push_doubles(const Doubles& d) override { core_.count<P::doubles>(d); }
  void push_strings(const Strings& d) override { core_.count<P::strings>(d); }
  void send(const Octets& d) override { core_.count<P::octets>(d); }
  void send_records(const Records& d) override { core_.count<P::records>(d); }
  void send_longs(const Longs& d) override { core_.count<P::longs>(d); }
  void send_doubles(const Doubles& d) override { core_.count<P::doubles>(d); }
  void send_strings(const Strings& d) override { core_.count<P::strings>(d); }
  // Thrift's C++ echo writes its result into `r`: a copy of the argument, as a servant returning it makes.
  void echo_octets(Octets& r, const Octets& d) override { core_.count<P::octets>(d), r = d; }
  void echo_records(Records& r, const Records& d) override { core_.count<P::records>(d), r = d; }
  void echo_longs(Longs& r, const Longs& d) override { core_.count<P::longs>(d), r = d; }
  void echo_doubles(Doubles& r, const Doubles& d) override { core_.count<P::doubles>(d), r = d; }
  void echo_strings(Strings& r, const Strings& d) override { core_.count<P::strings>(d), r = d; }

  // On the connection's own thread: the others' requests are served meanwhile.
  void sync(SyncResult& r, const int64_t expected, const int64_t timeout_ms) override {
    const SyncOutcome outcome = core_.sync(expected, timeout_ms);
    r.complete = outcome.complete;
    r.received = to_thrift(outcome.received);
  }
  void counters(Counters& r) override { r = to_thrift(core_.counters()); }
  void reset_counters() override { core_.reset_counters(); }
  void shutdown() override { core_.shutdown(); }
  // Thrift has services, not objects (its descriptor claims none): the call is refused, as gRPC's server does.
  void references(Strings&, const int64_t, const int64_t) override {
    throw apache::thrift::TApplicationException(apache::thrift::TApplicationException::UNKNOWN_METHOD,
                                                "references: a Thrift server is one service, no objects");
  }

 private:
  BenchCore& core_;
};

// Thrift's own hook once the server socket listens (with port 0, on the port it got): the kit's ready line.
class ReadyOnListen final : public TServerEventHandler {
 public:
  ReadyOnListen(std::function<void()> ready) : ready_(std::move(ready)) {}
  void preServe() override { ready_(); }

 private:
  std::function<void()> ready_;
};

class ThriftServer {
 public:
  static ServerSpec spec() {
    ServerSpec spec{"thrift-cpp", "Apache Thrift", PACKAGE_VERSION};
    spec.values = {"--transport"};
    spec.takes_options = true;
    return spec;
  }

  ThriftServer(const ServerConfig& config, BenchCore& core) : host_(config.host) {
    if (config.options.socket_buffer_bytes) throw std::invalid_argument("thrift-cpp sets no socket buffer sizes");
    const auto transport = config.values.find("--transport");
    const ThriftTransport kind = thrift_transport(transport == config.values.end() ? "" : transport->second);
    socket_ = std::make_shared<TServerSocket>(config.host, config.port);
    if (config.options.tcp_nodelay == false) {
      socket_->setAcceptCallback([](THRIFT_SOCKET fd) {
        const int off = 0;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &off, sizeof off);
      });
    }
    server_ = std::make_unique<TThreadedServer>(std::make_shared<BenchProcessor>(std::make_shared<BenchHandler>(core)),
                                                socket_, transport_factory(kind),
                                                std::make_shared<apache::thrift::protocol::TBinaryProtocolFactory>());
  }

  void serve(const std::function<void(const std::string&)>& ready) {
    server_->setServerEventHandler(
        std::make_shared<ReadyOnListen>([&] { ready(endpoint_url("thrift", host_, socket_->getPort())); }));
    server_->serve();
  }
  void stop() { server_->stop(); }

 private:
  std::string host_;
  std::shared_ptr<TServerSocket> socket_;
  std::unique_ptr<TThreadedServer> server_;
};

}  // namespace
}  // namespace orbench

int main(int argc, char** argv) { return orbench::server_main<orbench::ThriftServer>(argc, argv); }
