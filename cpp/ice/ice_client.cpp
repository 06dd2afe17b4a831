// orbench-ice-client: the ice-cpp target's client worker, on Ice's C++11 mapping of the Slice file the IDL
// translator writes. Twoway and echo calls go through the proxy as it is, IDL oneways through its ice_oneway()
// form, Ice's own oneway (PROTOCOL.md, "gRPC and Ice"). Its arguments are Ice properties (--Ice.Name=value).
#include <algorithm>

#include <Ice/Ice.h>

#include "ice_errors.hpp"
#include "idl_client.hpp"
#include "orbench.h"
#include "payload_values.hpp"

namespace orbench {

struct IceBinding {
  using Payloads = std::tuple<Octets, Records, Longs, Doubles, Strings>;
  Ice::CommunicatorHolder holder;
  std::shared_ptr<BenchPrx> twoway_proxy;
  std::shared_ptr<BenchPrx> oneway_proxy;  // twoway_proxy->ice_oneway()

  explicit IceBinding(std::vector<std::string>& args) : holder(args) {}  // takes the --Ice.* arguments out of args
  static MiddlewareInfo info() { return {"ice-cpp", "Ice", ICE_STRING_VERSION}; }

  void connect(const std::string& endpoint, const ConnectOptions& options) {
    refuse_connect_options(options, "Ice");
    disconnect();
    std::shared_ptr<Ice::ObjectPrx> base;
    try {
      base = holder->stringToProxy(endpoint);
    } catch (const Ice::Exception& error) {
      throw WorkerError(ErrorKind::usage, std::string("bad endpoint: ") + error.what());
    }
    if (!base) throw WorkerError(ErrorKind::usage, "bad endpoint: an empty proxy");
    // No checkedCast (a remote ice_isA): the client's reset_counters is the one call that proves the server.
    twoway_proxy = Ice::uncheckedCast<BenchPrx>(base);
    oneway_proxy = twoway_proxy->ice_oneway();
  }
  void disconnect() { twoway_proxy.reset(), oneway_proxy.reset(); }
  bool connected() const { return twoway_proxy != nullptr; }

  void reset_counters() { twoway_proxy->reset_counters(); }
  Counts counters() {
    const Counters counts = twoway_proxy->counters();
    return {static_cast<uint64_t>(counts.messages), static_cast<uint64_t>(counts.bytes)};
  }
  SyncOutcome sync(uint64_t expected, uint32_t timeout_ms) {
    const SyncResult r = twoway_proxy->sync(static_cast<long long>(expected), static_cast<long long>(timeout_ms));
    return {r.complete, {static_cast<uint64_t>(r.received.messages), static_cast<uint64_t>(r.received.bytes)}};
  }

  template <PayloadType T, class P>
  static void fill(P& payload, uint64_t count) { payload.resize(count), payload::fill_indexed<T>(payload, count); }
  template <PayloadType T, class P>
  static bool same(const P& reply, const P& request) {
    if constexpr (T != PayloadType::records) return reply == request;
    else return std::equal(reply.begin(), reply.end(), request.begin(), request.end(), payload::same_record<Record>);
  }
  template <PayloadType T, class P>
  auto oneway(const P& p) { return [&p, &proxy = *oneway_proxy](uint64_t) { call_push<T>(proxy, p); }; }
  template <PayloadType T, class P>
  auto twoway(const P& p) { return [&p, &proxy = *twoway_proxy](uint64_t) { call_send<T>(proxy, p); }; }
  template <PayloadType T, class P>  // the reply is freed after the second clock read, with the check
  auto echo(const P& p) { return [&p, &proxy = *twoway_proxy](uint64_t) { return call_echo<T>(proxy, p); }; }
  template <class Body>
  static auto guarded(const char* what, Body&& body) { return with_ice_errors(what, body); }
};

}  // namespace orbench

int main(int argc, char** argv) { return orbench::idl_client_main<orbench::IceBinding>(argc, argv); }
