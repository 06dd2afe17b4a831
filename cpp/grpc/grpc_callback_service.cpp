#include "grpc_callback_service.hpp"

#include <thread>

#include "grpc_counters.hpp"
#include "grpc_shape_replies.hpp"

namespace orbench {

namespace {

using P = PayloadType;
using Context = grpc::CallbackServerContext;
using Unary = grpc::ServerUnaryReactor;
template <typename Message>
using Reader = grpc::ServerReadReactor<Message>;

// The server end of a push stream: counts each message as it is read, answers once the client half-closes.
template <PayloadType T, typename Message>
class Drain final : public Reader<Message> {
 public:
  explicit Drain(BenchCore& core) : core_(core) { this->StartRead(&message_); }
  void OnReadDone(bool ok) override {
    if (!ok) {  // half-closed or cancelled: what came is counted
      this->Finish(grpc::Status::OK);
      return;
    }
    core_.count<T>(message_.items());
    this->StartRead(&message_);
  }
  void OnDone() override { delete this; }

 private:
  BenchCore& core_;
  Message message_;
};

Unary* finished(Context* context) {
  Unary* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

class CallbackBenchService final : public Bench::CallbackService {
 public:
  explicit CallbackBenchService(BenchCore& core) : core_(core) {}

  Reader<Octets>* push(Context*, Empty*) override { return new Drain<P::octets, Octets>(core_); }
  Reader<Records>* push_records(Context*, Empty*) override { return new Drain<P::records, Records>(core_); }
  Reader<Longs>* push_longs(Context*, Empty*) override { return new Drain<P::longs, Longs>(core_); }
  Reader<Doubles>* push_doubles(Context*, Empty*) override { return new Drain<P::doubles, Doubles>(core_); }
  Reader<Strings>* push_strings(Context*, Empty*) override { return new Drain<P::strings, Strings>(core_); }
  Unary* send(Context* c, const Octets* m, Empty*) override { return take<P::octets>(c, *m); }
  Unary* send_records(Context* c, const Records* m, Empty*) override { return take<P::records>(c, *m); }
  Unary* send_longs(Context* c, const Longs* m, Empty*) override { return take<P::longs>(c, *m); }
  Unary* send_doubles(Context* c, const Doubles* m, Empty*) override { return take<P::doubles>(c, *m); }
  Unary* send_strings(Context* c, const Strings* m, Empty*) override { return take<P::strings>(c, *m); }
  Unary* echo_octets(Context* c, const Octets* m, Octets* r) override { return echo<P::octets>(c, *m, r); }
  Unary* echo_records(Context* c, const Records* m, Records* r) override { return echo<P::records>(c, *m, r); }
  Unary* echo_longs(Context* c, const Longs* m, Longs* r) override { return echo<P::longs>(c, *m, r); }
  Unary* echo_doubles(Context* c, const Doubles* m, Doubles* r) override { return echo<P::doubles>(c, *m, r); }
  Unary* echo_strings(Context* c, const Strings* m, Strings* r) override { return echo<P::strings>(c, *m, r); }

  // A callback handler must not block gRPC's thread: the barrier waits on a thread of its own and finishes the
  // call from there (as the Ice server's AMD sync does).
  Unary* sync(Context* c, const SyncRequest* request, SyncResult* reply) override {
    Unary* reactor = c->DefaultReactor();
    std::thread([this, reactor, reply, expected = request->expected(), timeout_ms = request->timeout_ms()] {
      to_proto(core_.sync(expected, timeout_ms), reply);
      reactor->Finish(grpc::Status::OK);
    }).detach();
    return reactor;
  }
  Unary* counters(Context* c, const Empty*, Counters* reply) override {
    to_proto(core_.counters(), reply);
    return finished(c);
  }
  Unary* reset_counters(Context* c, const Empty*, Empty*) override {
    core_.reset_counters();
    return finished(c);
  }
  Unary* shutdown(Context* c, const Empty*, Empty*) override {
    core_.shutdown();
    return finished(c);
  }
  // references(): not overridden, so UNIMPLEMENTED (gRPC has services, not objects).

 private:
  template <PayloadType T, typename Message>
  Unary* take(Context* context, const Message& m) {
    core_.count<T>(m.items());
    return finished(context);
  }
  template <PayloadType T, typename Message>
  Unary* echo(Context* context, const Message& m, Message* r) {
    core_.count<T>(m.items());
    *r = m;
    return finished(context);
  }

  BenchCore& core_;
};

Unary* finished(Context* context, const grpc::Status& status) {
  Unary* reactor = context->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

// The Shapes service: each call answered on gRPC's thread, as send and echo are.
class CallbackShapesService final : public Shapes::CallbackService {
 public:
  explicit CallbackShapesService(BenchCore& core) : replies_(core) {}

  Unary* out_octets(Context* c, const OutOctetsRequest* q, Octets* r) override { return made<P::octets>(c, q, r); }
  Unary* out_records(Context* c, const OutRecordsRequest* q, Records* r) override { return made<P::records>(c, q, r); }
  Unary* out_longs(Context* c, const OutLongsRequest* q, Longs* r) override { return made<P::longs>(c, q, r); }
  Unary* out_doubles(Context* c, const OutDoublesRequest* q, Doubles* r) override { return made<P::doubles>(c, q, r); }
  Unary* out_strings(Context* c, const OutStringsRequest* q, Strings* r) override { return made<P::strings>(c, q, r); }
  Unary* return_octets(Context* c, const ReturnOctetsRequest* q, Octets* r) override {
    return made<P::octets>(c, q, r);
  }
  Unary* return_records(Context* c, const ReturnRecordsRequest* q, Records* r) override {
    return made<P::records>(c, q, r);
  }
  Unary* return_longs(Context* c, const ReturnLongsRequest* q, Longs* r) override { return made<P::longs>(c, q, r); }
  Unary* return_doubles(Context* c, const ReturnDoublesRequest* q, Doubles* r) override {
    return made<P::doubles>(c, q, r);
  }
  Unary* return_strings(Context* c, const ReturnStringsRequest* q, Strings* r) override {
    return made<P::strings>(c, q, r);
  }
  Unary* inout_octets(Context* c, const Octets* m, Octets* r) override {
    return finished(c, replies_.inout<P::octets>(*m, r));
  }
  Unary* inout_records(Context* c, const Records* m, Records* r) override {
    return finished(c, replies_.inout<P::records>(*m, r));
  }
  Unary* inout_longs(Context* c, const Longs* m, Longs* r) override {
    return finished(c, replies_.inout<P::longs>(*m, r));
  }
  Unary* inout_doubles(Context* c, const Doubles* m, Doubles* r) override {
    return finished(c, replies_.inout<P::doubles>(*m, r));
  }
  Unary* inout_strings(Context* c, const Strings* m, Strings* r) override {
    return finished(c, replies_.inout<P::strings>(*m, r));
  }
  Unary* raise_octets(Context* c, const Octets* m, Empty*) override { return finished(c, replies_.refuse<P::octets>(*m)); }
  Unary* raise_records(Context* c, const Records* m, Empty*) override {
    return finished(c, replies_.refuse<P::records>(*m));
  }
  Unary* raise_longs(Context* c, const Longs* m, Empty*) override { return finished(c, replies_.refuse<P::longs>(*m)); }
  Unary* raise_doubles(Context* c, const Doubles* m, Empty*) override {
    return finished(c, replies_.refuse<P::doubles>(*m));
  }
  Unary* raise_strings(Context* c, const Strings* m, Empty*) override {
    return finished(c, replies_.refuse<P::strings>(*m));
  }

 private:
  template <PayloadType T, typename Request, typename Message>
  Unary* made(Context* context, const Request* request, Message* reply) {
    return finished(context, replies_.made<T>(request->count(), reply));
  }

  ShapeReplies replies_;
};

}  // namespace

std::unique_ptr<grpc::Service> callback_bench_service(BenchCore& core) {
  return std::make_unique<CallbackBenchService>(core);
}

std::unique_ptr<grpc::Service> callback_shapes_service(BenchCore& core) {
  return std::make_unique<CallbackShapesService>(core);
}

}  // namespace orbench
