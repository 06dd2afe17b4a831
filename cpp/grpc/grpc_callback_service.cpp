#include "grpc_callback_service.hpp"

#include <thread>

#include "grpc_counters.hpp"

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

}  // namespace

std::unique_ptr<grpc::Service> callback_bench_service(BenchCore& core) {
  return std::make_unique<CallbackBenchService>(core);
}

}  // namespace orbench
