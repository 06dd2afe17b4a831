// The invocation shapes of the gRPC client (PROTOCOL.md, "Invocation shapes" and "gRPC and Ice"): out, return,
// inout, exception and AMI on the Shapes service that the IDL translator writes from the IDL's Shapes, with the
// semantics of the ORB and Ice clients' (cpp/orb/orb_shapes.hpp, cpp/ice/ice_shapes.hpp): the same replies,
// checked the same way after the second clock read. out and return are the same call in proto (a count in,
// the payload message back); inout sends the payload and gets the reply message back; Refused is a status
// (FAILED_PRECONDITION, "Refused count=N"). AMI is gRPC's callback API, stub->async()->send/echo_* with a
// completion callback per call, on gRPC's own threads.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "bench_driver.hpp"
#include "grpc_errors.hpp"
#include "grpc_payloads.hpp"
#include "idl_client.hpp"
#include "shape_calls.hpp"

namespace orbench {

class GrpcShapes {
 public:
  static std::vector<std::string> kinds() { return {"in", "out", "return", "inout", "exception", "ami"}; }

  // `same(reply, request)`: the binding's comparison of two payload messages of type T. A reply is parsed into
  // one message reused by every call, as the gRPC client's echo does.
  template <PayloadType T, class M, class Same>
  TimedSpan calls(Bench::Stub& bench, Shapes::Stub& s, const ShapeSpec& shape, Mode mode, const M& payload,
                  int64_t* samples_ns, uint64_t calls, Same same) {
    const auto count = static_cast<uint32_t>(payload.items().size());
    const std::string& kind = shape.kind;
    last_answer_ = nlohmann::ordered_json::object();
    if (kind == "out" || kind == "return" || kind == "inout") {
      M expected;
      fill_message<T>(expected, count, 1);
      auto check = [&](uint64_t i, const M* reply) {
        if (same(*reply, expected)) return;
        wrong_reply(kind == "inout" ? "inout reply is not elements 1.. of the payload"
                                    : "reply differs from elements 1.. of the payload", i);
      };
      M reply;
      if (kind == "out") {
        OutRequest<T> request;
        request.set_count(count);
        return timed_loop(samples_ns, calls, [&](uint64_t) {
          grpc::ClientContext context;
          check_status("run", call_out<T>(s, &context, request, &reply));
          return &std::as_const(reply);
        }, check);
      }
      if (kind == "return") {
        ReturnRequest<T> request;
        request.set_count(count);
        return timed_loop(samples_ns, calls, [&](uint64_t) {
          grpc::ClientContext context;
          check_status("run", call_return<T>(s, &context, request, &reply));
          return &std::as_const(reply);
        }, check);
      }
      return timed_loop(samples_ns, calls, [&](uint64_t) {
        grpc::ClientContext context;
        check_status("run", call_inout<T>(s, &context, payload, &reply));
        return &std::as_const(reply);
      }, check);
    }
    if (kind == "exception") {
      // 0: returned OK; 1: the Refused status with the request's count; 2: the Refused status with another
      // message. Any other status is an error of the call, as an ORB's system exception is.
      const std::string refused = refused_message(count);
      return timed_loop(samples_ns, calls, [&](uint64_t) {
        grpc::ClientContext context;
        Empty nothing;
        const grpc::Status status = call_raise<T>(s, &context, payload, &nothing);
        if (status.ok()) return 0;
        if (status.error_code() != kRefusedCode) throw grpc_error("run", status);
        return status.error_message() == refused ? 1 : 2;
      }, [&](uint64_t i, int outcome) {
        if (outcome == 0) wrong_reply("returned OK, not the Refused status", i);
        if (outcome == 2) wrong_reply("the Refused status with another count than the request's", i);
      });
    }
    if (kind == "ami") return ami<T>(bench, shape.outstanding, mode, payload, samples_ns, calls, same);
    throw WorkerError(ErrorKind::unsupported, "shape \"" + shape.name() + "\" not supported by gRPC");
  }
  nlohmann::ordered_json answer() const { return last_answer_; }

 private:
  // One call in flight: gRPC needs its context, request and reply until the callback ran; the callback
  // deletes it.
  template <class M, class Reply>
  struct InFlight {
    grpc::ClientContext context;
    Reply reply;
  };

  // Call i goes out as soon as fewer than `outstanding` are in flight; its callback, on a gRPC thread, completes
  // it. The run and a copy of the payload are shared with the callbacks, so a reply that comes after a failed
  // run finds both.
  template <PayloadType T, class M, class Same>
  TimedSpan ami(Bench::Stub& bench, uint32_t outstanding, Mode mode, const M& payload, int64_t* samples_ns,
                uint64_t calls, Same same) {
    auto run = std::make_shared<AmiRun>(samples_ns);
    run->set_slots(outstanding, injected_fault() == "ami_lost");
    const auto request = std::make_shared<const M>(payload);
    const auto limit = reply_wait();
    TimedSpan span;
    std::string lost;
    for (uint64_t i = 0; i < calls && lost.empty(); ++i) {
      uint32_t slot = 0;
      if (!run->take_slot(slot, limit)) {
        lost = "no reply came for " + std::to_string(limit.count() / 1000) + " s with " + std::to_string(outstanding) + " outstanding";
        break;
      }
      const int64_t at = monotonic_ns();
      if (i == 0) span.start_ns = at;
      run->started(slot, i, at);
      if (mode == Mode::twoway) {
        auto* call = new InFlight<M, Empty>();
        call_send<T>(*bench.async(), &call->context, request.get(), &call->reply,
                     [run, slot, call](grpc::Status status) {
                       run->finished(slot, monotonic_ns(), status.ok(), failure(status));
                       delete call;
                     });
      } else {
        auto* call = new InFlight<M, M>();
        call_echo<T>(*bench.async(), &call->context, request.get(), &call->reply,
                     [run, slot, call, request, same](grpc::Status status) {
                       const int64_t done = monotonic_ns();
                       const bool ok = status.ok() && same(call->reply, *request);
                       run->finished(slot, done, ok, status.ok() ? "echo reply differs from the request" : failure(status));
                       delete call;
                     });
      }
    }
    const bool all = run->wait_all(limit);
    run->close();
    last_answer_ = {{"replies", run->replies()}, {"outstanding", outstanding}, {"outstanding_max", run->outstanding_max()}};
    if (!run->error().empty()) throw WorkerError(ErrorKind::remote, "AMI: " + run->error());
    if (!lost.empty() || !all || run->replies() != calls) {
      throw WorkerError(ErrorKind::remote, "AMI: " + std::to_string(run->replies()) + " of " + std::to_string(calls) +
                                               " replies arrived" + (lost.empty() ? "" : " (" + lost + ")"));
    }
    span.end_ns = run->end_ns();
    return span;
  }

  static std::string failure(const grpc::Status& status) {
    return status.ok() ? "" : "gRPC status " + std::to_string(static_cast<int>(status.error_code())) + ": " +
                                  status.error_message();
  }

  nlohmann::ordered_json last_answer_ = nlohmann::ordered_json::object();
};

}  // namespace orbench
