#include "grpc_callback_service.hpp"

#include <thread>

#include "grpc_payloads.hpp"

namespace orbench {

namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;

// The server end of a push stream: counts each message as it is read, answers once the client half-closes.
template <typename Message>
class Drain final : public grpc::ServerReadReactor<Message> {
 public:
  explicit Drain(MessageCounter& counter) : counter_(counter) { this->StartRead(&message_); }
  void OnReadDone(bool ok) override {
    if (!ok) {  // half-closed or cancelled: what came is counted
      this->Finish(grpc::Status::OK);
      return;
    }
    counter_.count(payload_bytes(message_));
    this->StartRead(&message_);
  }
  void OnDone() override { delete this; }

 private:
  MessageCounter& counter_;
  Message message_;
};

ServerUnaryReactor* finished(CallbackServerContext* context) {
  ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

template <typename Message>
ServerUnaryReactor* take(MessageCounter& counter, CallbackServerContext* context, const Message& m) {
  counter.count(payload_bytes(m));
  return finished(context);
}

template <typename Message>
ServerUnaryReactor* echo(MessageCounter& counter, CallbackServerContext* context, const Message& m, Message* r) {
  counter.count(payload_bytes(m));
  *r = m;
  return finished(context);
}

}  // namespace

grpc::ServerReadReactor<orbench::Octets>* CallbackBenchService::push(CallbackServerContext*, orbench::Empty*) {
  return new Drain<orbench::Octets>(counter_);
}
grpc::ServerReadReactor<orbench::Records>* CallbackBenchService::push_records(CallbackServerContext*,
                                                                              orbench::Empty*) {
  return new Drain<orbench::Records>(counter_);
}
grpc::ServerReadReactor<orbench::Longs>* CallbackBenchService::push_longs(CallbackServerContext*, orbench::Empty*) {
  return new Drain<orbench::Longs>(counter_);
}
grpc::ServerReadReactor<orbench::Doubles>* CallbackBenchService::push_doubles(CallbackServerContext*,
                                                                              orbench::Empty*) {
  return new Drain<orbench::Doubles>(counter_);
}
grpc::ServerReadReactor<orbench::Strings>* CallbackBenchService::push_strings(CallbackServerContext*,
                                                                              orbench::Empty*) {
  return new Drain<orbench::Strings>(counter_);
}

ServerUnaryReactor* CallbackBenchService::send(CallbackServerContext* c, const orbench::Octets* m, orbench::Empty*) {
  return take(counter_, c, *m);
}
ServerUnaryReactor* CallbackBenchService::send_records(CallbackServerContext* c, const orbench::Records* m,
                                                       orbench::Empty*) {
  return take(counter_, c, *m);
}
ServerUnaryReactor* CallbackBenchService::send_longs(CallbackServerContext* c, const orbench::Longs* m,
                                                     orbench::Empty*) {
  return take(counter_, c, *m);
}
ServerUnaryReactor* CallbackBenchService::send_doubles(CallbackServerContext* c, const orbench::Doubles* m,
                                                       orbench::Empty*) {
  return take(counter_, c, *m);
}
ServerUnaryReactor* CallbackBenchService::send_strings(CallbackServerContext* c, const orbench::Strings* m,
                                                       orbench::Empty*) {
  return take(counter_, c, *m);
}

ServerUnaryReactor* CallbackBenchService::echo_octets(CallbackServerContext* c, const orbench::Octets* m,
                                                      orbench::Octets* r) {
  return echo(counter_, c, *m, r);
}
ServerUnaryReactor* CallbackBenchService::echo_records(CallbackServerContext* c, const orbench::Records* m,
                                                       orbench::Records* r) {
  return echo(counter_, c, *m, r);
}
ServerUnaryReactor* CallbackBenchService::echo_longs(CallbackServerContext* c, const orbench::Longs* m,
                                                     orbench::Longs* r) {
  return echo(counter_, c, *m, r);
}
ServerUnaryReactor* CallbackBenchService::echo_doubles(CallbackServerContext* c, const orbench::Doubles* m,
                                                       orbench::Doubles* r) {
  return echo(counter_, c, *m, r);
}
ServerUnaryReactor* CallbackBenchService::echo_strings(CallbackServerContext* c, const orbench::Strings* m,
                                                       orbench::Strings* r) {
  return echo(counter_, c, *m, r);
}

// A callback handler must not block gRPC's thread: the barrier waits on a thread of its own and finishes the
// call from there (as the Ice server's AMD sync does).
ServerUnaryReactor* CallbackBenchService::sync(CallbackServerContext* context, const orbench::SyncRequest* request,
                                               orbench::SyncResult* reply) {
  ServerUnaryReactor* reactor = context->DefaultReactor();
  const uint64_t expected = request->expected();
  const uint32_t timeout_ms = request->timeout_ms();
  MessageCounter& counter = counter_;
  std::thread([&counter, reactor, reply, expected, timeout_ms] {
    const SyncOutcome outcome = counter.wait_for(expected, timeout_ms);
    reply->set_complete(outcome.complete);
    reply->mutable_received()->set_messages(outcome.received.messages);
    reply->mutable_received()->set_bytes(outcome.received.bytes);
    reactor->Finish(grpc::Status::OK);
  }).detach();
  return reactor;
}

ServerUnaryReactor* CallbackBenchService::counters(CallbackServerContext* c, const orbench::Empty*,
                                                   orbench::Counters* reply) {
  const Counts counts = counter_.snapshot();
  reply->set_messages(counts.messages);
  reply->set_bytes(counts.bytes);
  return finished(c);
}

ServerUnaryReactor* CallbackBenchService::reset_counters(CallbackServerContext* c, const orbench::Empty*,
                                                         orbench::Empty*) {
  counter_.reset();
  return finished(c);
}

// Only starts the stop (on a thread of its own): this call still returns its reply.
ServerUnaryReactor* CallbackBenchService::shutdown(CallbackServerContext* c, const orbench::Empty*, orbench::Empty*) {
  request_stop_();
  return finished(c);
}

}  // namespace orbench
