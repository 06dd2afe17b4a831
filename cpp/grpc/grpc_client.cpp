// orbench-grpc-client: the grpc-cpp target's client worker, on gRPC's synchronous API and the Bench service of
// the proto the IDL translator writes. No arguments. IDL oneways are client-streaming calls (PROTOCOL.md, "gRPC
// and Ice"): one stream per payload type and calling thread (a ClientWriter takes one writer at a time), opened
// by the first oneway run of that type on that thread and kept open until the connection is replaced or the
// client quits; a timed call is one Write(), which returns when gRPC has taken the message (flow control
// permitting). Every thread shares the one channel and stub. The invocation shapes, on the Shapes service of
// the same channel, are in grpc_shapes.hpp.
#include <google/protobuf/util/message_differencer.h>

#include "endpoint_url.hpp"
#include "grpc_absl.hpp"
#include "grpc_errors.hpp"
#include "grpc_payloads.hpp"
#include "grpc_shapes.hpp"
#include "idl_client.hpp"
#include "orbench.grpc.pb.h"

namespace orbench {

// An open push stream; close() cancels first, so that a frozen or dead server cannot block it in Finish().
template <typename Message>
struct PushStream {
  grpc::ClientContext context;
  Empty reply;
  std::unique_ptr<grpc::ClientWriter<Message>> writer;
  grpc::Status close() { return context.TryCancel(), writer->Finish(); }
};

struct GrpcBinding {
  using Payloads = std::tuple<Octets, Records, Longs, Doubles, Strings>;
  using Ref = Bench::Stub*;
  static constexpr bool kObjects = false;  // a gRPC server is one service, no objects
  using Streams = std::tuple<std::unique_ptr<PushStream<Octets>>, std::unique_ptr<PushStream<Records>>,
                             std::unique_ptr<PushStream<Longs>>, std::unique_ptr<PushStream<Doubles>>,
                             std::unique_ptr<PushStream<Strings>>>;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<Bench::Stub> stub;
  std::vector<Streams> streams = std::vector<Streams>(kMaxThreads);  // each thread's, so none is resized while used

  explicit GrpcBinding(std::vector<std::string>&) {}  // no arguments
  ~GrpcBinding() { disconnect(); }
  static MiddlewareInfo info() { return {"grpc-cpp", "gRPC", grpc::Version()}; }

  void connect(const std::string& endpoint, const ConnectOptions& options) {
    refuse_connect_options(options, "gRPC");
    const UrlEndpoint at = parse_endpoint_url("grpc", endpoint);
    disconnect();
    channel = grpc::CreateChannel(host_port(at.host, at.port), grpc::InsecureChannelCredentials());
    stub = Bench::NewStub(channel);
  }
  void disconnect() {
    for (Streams& each : streams) {
      std::apply([](auto&... stream) { ((stream ? (stream->close(), stream.reset()) : void()), ...); }, each);
    }
    stub.reset(), shapes_stub.reset(), channel.reset();
  }
  bool connected() const { return stub != nullptr; }
  Ref target(Mode, size_t) const { return stub.get(); }

  // A control call, with a context of its own (gRPC never reuses one).
  template <class Reply, class Method, class Request = Empty>
  Reply control(const char* what, Method method, const Request& request = {}) {
    grpc::ClientContext context;
    Reply reply;
    check_status(what, ((*stub).*method)(&context, request, &reply));
    return reply;
  }
  void reset_counters() { control<Empty>("reset_counters", &Bench::Stub::reset_counters); }
  void shutdown() { control<Empty>("shutdown", &Bench::Stub::shutdown); }
  Counts counters() {
    const Counters counts = control<Counters>("counters", &Bench::Stub::counters);
    return {counts.messages(), counts.bytes()};
  }
  SyncOutcome sync(uint64_t expected, uint32_t timeout_ms) {
    SyncRequest request;
    request.set_expected(expected), request.set_timeout_ms(timeout_ms);
    const SyncResult r = control<SyncResult>("sync", &Bench::Stub::sync, request);
    return {r.complete(), {r.received().messages(), r.received().bytes()}};
  }

  template <PayloadType T, class M>
  static void fill(M& message, uint64_t count) {
    fill_message<T>(message, count);
  }
  template <PayloadType T, class M>
  static bool same(const M& reply, const M& request) {
    return google::protobuf::util::MessageDifferencer::Equals(reply, request);
  }
  template <PayloadType T, class M, class Pick>
  auto oneway(const M& payload, Pick pick, uint32_t thread) {
    auto& stream = std::get<static_cast<size_t>(T)>(streams[thread]);
    if (!stream) {  // opened by the first oneway run of this payload type on this thread
      stream = std::make_unique<PushStream<M>>();
      stream->writer = call_push<T>(*pick(0), &stream->context, &stream->reply);
    }
    return [&payload, &stream, &writer = *stream->writer](uint64_t i) {
      if (!writer.Write(payload)) {
        // The stream is broken (server gone): its status says why; the next oneway run opens a new one.
        const grpc::Status status = stream->close();
        stream.reset();
        throw grpc_error("push stream write " + std::to_string(i),
                         status.ok() ? grpc::Status(grpc::StatusCode::UNAVAILABLE, "stream closed") : status);
      }
    };
  }
  // A ClientContext per call: gRPC does not allow reusing one, so making it is part of every call.
  template <PayloadType T, class M, class Pick>
  auto twoway(const M& payload, Pick pick, uint32_t) {
    return [&payload, pick, reply = Empty()](uint64_t i) mutable {
      grpc::ClientContext context;
      check_status("run", call_send<T>(*pick(i), &context, payload, &reply));
    };
  }
  template <PayloadType T, class M, class Pick>  // each thread's closure has a reply of its own
  auto echo(const M& payload, Pick pick, uint32_t) {
    return [&payload, pick, reply = M()](uint64_t i) mutable {
      grpc::ClientContext context;
      check_status("run", call_echo<T>(*pick(i), &context, payload, &reply));
      return &std::as_const(reply);
    };
  }
  template <class Body>
  static auto guarded(const char*, Body&& body) { return body(); }  // errors are statuses, checked call by call

  // Invocation shapes (grpc_shapes.hpp), on the Shapes service of the same channel: no remote call until the
  // first shaped one (a server without that service answers it UNIMPLEMENTED).
  static std::vector<std::string> shapes() { return GrpcShapes::kinds(); }
  void use_shape(const ShapeSpec& shape) {
    if (!shape.is_in() && !shapes_stub) shapes_stub = Shapes::NewStub(channel);
  }
  template <PayloadType T, class M>
  TimedSpan shaped_calls(const ShapeSpec& shape, Mode mode, const M& payload, int64_t* samples_ns, uint64_t calls) {
    return shapes_.calls<T>(*stub, *shapes_stub, shape, mode, payload, samples_ns, calls,
                            [](const M& reply, const M& request) { return same<T>(reply, request); });
  }
  nlohmann::ordered_json shape_answer() const { return shapes_.answer(); }
  std::unique_ptr<Shapes::Stub> shapes_stub;
  GrpcShapes shapes_;
};

}  // namespace orbench

int main(int argc, char** argv) {
  orbench::absl_checks_as_in_release();
  return orbench::idl_client_main<orbench::GrpcBinding>(argc, argv);
}
