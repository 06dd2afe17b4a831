// The invocation shapes of the Ice client (PROTOCOL.md, "Invocation shapes" and "gRPC and Ice"): out, return,
// inout, exception and AMI on the Slice that the IDL translator writes from the Shapes interface, with the
// semantics of the ORB client's (cpp/orb/orb_shapes.hpp): the same replies, checked the same way after the
// second clock read. Slice has no inout: inout_* take the payload in one argument and hand the reply back in an
// out argument. AMI is Ice's own: the proxy's *Async calls with response callbacks, on Ice's client threads.
#pragma once

#include <chrono>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <Ice/Ice.h>

#include "bench_driver.hpp"
#include "orbench.h"
#include "payload_values.hpp"
#include "shape_calls.hpp"

namespace orbench {

// The Async forms of send* and echo_* (response callback, exception callback), by their names in orbench.idl.
template <PayloadType T, typename Proxy, typename... Args>
void send_async(Proxy& p, Args&&... a) {
  if constexpr (T == PayloadType::octets) p.sendAsync(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::records) p.send_recordsAsync(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::longs) p.send_longsAsync(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::doubles) p.send_doublesAsync(std::forward<Args>(a)...);
  else p.send_stringsAsync(std::forward<Args>(a)...);
}
template <PayloadType T, typename Proxy, typename... Args>
void echo_async(Proxy& p, Args&&... a) {
  if constexpr (T == PayloadType::octets) p.echo_octetsAsync(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::records) p.echo_recordsAsync(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::longs) p.echo_longsAsync(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::doubles) p.echo_doublesAsync(std::forward<Args>(a)...);
  else p.echo_stringsAsync(std::forward<Args>(a)...);
}

inline std::string describe_ice_failure(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& error) {
    return std::string("exception reply: ") + error.what();
  } catch (...) {
    return "exception reply";
  }
}

class IceShapes {
 public:
  static std::vector<std::string> kinds() { return {"in", "out", "return", "inout", "exception", "ami"}; }

  // `same(reply, request)`: the binding's comparison of two payloads of type T.
  template <PayloadType T, class P, class Same>
  TimedSpan calls(ShapesPrx& s, const ShapeSpec& shape, Mode mode, const P& payload, int64_t* samples_ns,
                  uint64_t calls, Same same) {
    const auto count = static_cast<long long>(payload.size());
    const std::string& kind = shape.kind;
    last_answer_ = nlohmann::ordered_json::object();
    if (kind == "out" || kind == "return" || kind == "inout") {
      const P expected = reply_payload<T, P>(payload.size());
      auto check = [&](uint64_t i, const P& reply) {
        if (same(reply, expected)) return;
        wrong_reply(kind == "inout" ? "inout reply is not elements 1.. of the payload"
                                    : "reply differs from elements 1.. of the payload", i);
      };
      // A new sequence per call, as an echo's reply: the reply is freed after the second clock read.
      if (kind == "out") {
        return timed_loop(samples_ns, calls, [&](uint64_t) {
          P reply;
          call_out<T>(s, count, reply);
          return reply;
        }, check);
      }
      if (kind == "return") return timed_loop(samples_ns, calls, [&](uint64_t) { return call_return<T>(s, count); }, check);
      return timed_loop(samples_ns, calls, [&](uint64_t) {
        P reply;
        call_inout<T>(s, payload, reply);
        return reply;
      }, check);
    }
    if (kind == "exception") {
      // 0: returned normally; 1: Refused with the right count; 2: Refused with another count.
      return timed_loop(samples_ns, calls, [&](uint64_t) {
        try {
          call_raise<T>(s, payload);
        } catch (const Refused& refused) {
          return refused.count == count ? 1 : 2;
        }
        return 0;
      }, [&](uint64_t i, int outcome) {
        if (outcome == 0) wrong_reply("returned without raising orbench::Refused", i);
        if (outcome == 2) wrong_reply("orbench::Refused with another count than the request's", i);
      });
    }
    if (kind == "ami") return ami<T>(s, shape.outstanding, mode, payload, samples_ns, calls, same);
    throw WorkerError(ErrorKind::unsupported, "shape \"" + shape.name() + "\" not supported by Ice");
  }
  nlohmann::ordered_json answer() const { return last_answer_; }

 private:
  template <PayloadType T, class P>
  static P reply_payload(size_t count) {
    P made(count);
    payload::fill_indexed<T>(made, count, 1);
    return made;
  }

  // Call i goes out as soon as fewer than `outstanding` are in flight; its callback, on an Ice client thread,
  // completes it. The run is shared with the callbacks, so a reply that comes after a failed run finds it.
  template <PayloadType T, class P, class Same>
  TimedSpan ami(ShapesPrx& s, uint32_t outstanding, Mode mode, const P& payload, int64_t* samples_ns,
                uint64_t calls, Same same) {
    auto run = std::make_shared<AmiRun>(samples_ns);
    run->set_slots(outstanding, injected_fault() == "ami_lost");
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
      auto failed = [run, slot](std::exception_ptr failure) {
        run->finished(slot, monotonic_ns(), false, describe_ice_failure(failure));
      };
      if (mode == Mode::twoway) {
        send_async<T>(s, payload, [run, slot] { run->finished(slot, monotonic_ns(), true); }, failed);
      } else {
        // The payload outlives the callbacks that compare with it: the run waits for them or fails.
        echo_async<T>(s, payload, [run, slot, &payload, same](P reply) {
          const int64_t done = monotonic_ns();
          run->finished(slot, done, same(reply, payload), "echo reply differs from the request");
        }, failed);
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

  nlohmann::ordered_json last_answer_ = nlohmann::ordered_json::object();
};

}  // namespace orbench
