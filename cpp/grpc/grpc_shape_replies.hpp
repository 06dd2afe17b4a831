// What the Shapes service does on the server (PROTOCOL.md, "Invocation shapes"), for both of its
// implementations (grpc_server.cpp's on the synchronous API, grpc_callback_service.cpp's on the callback API):
// out and return hand back `count` elements from element 1, built once per payload type and count and copied
// into each reply, as the ORB and Ice servers do; inout hands back as many elements as the request carried;
// raise_* fails every call with the Refused status. out and return count the reply they send, inout and
// raise the request.
#pragma once

#include <map>
#include <mutex>
#include <tuple>

#include <grpcpp/grpcpp.h>

#include "grpc_payloads.hpp"
#include "server_kit.hpp"
#include "shape_calls.hpp"

namespace orbench {

class ShapeReplies {
 public:
  explicit ShapeReplies(BenchCore& core) : core_(core) {}

  // out_* and return_*: the request carries the count.
  template <PayloadType T, class M>
  grpc::Status made(uint32_t count, M* reply) {
    *reply = get<T, M>(count);
    core_.count<T>(reply->items());
    return grpc::Status::OK;
  }
  // inout_*: the reply replaces the request's elements (the fault inout_unchanged hands the request back).
  template <PayloadType T, class M>
  grpc::Status inout(const M& request, M* reply) {
    core_.count<T>(request.items());
    if (injected_fault() == "inout_unchanged") {
      *reply = request;
    } else {
      *reply = get<T, M>(static_cast<uint32_t>(request.items().size()));
    }
    return grpc::Status::OK;
  }
  template <PayloadType T, class M>
  grpc::Status refuse(const M& request) {
    core_.count<T>(request.items());
    if (injected_fault() == "no_raise") return grpc::Status::OK;
    return grpc::Status(kRefusedCode, refused_message(request.items().size()));
  }

 private:
  template <PayloadType T, class M>
  const M& get(uint32_t count) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& made = std::get<std::map<uint32_t, M>>(replies_);
    auto it = made.find(count);
    if (it == made.end()) {
      it = made.emplace(count, M()).first;
      fill_message<T>(it->second, count, 1);
    }
    return it->second;  // a map's elements stay where they are, and a made reply never changes
  }

  BenchCore& core_;
  std::mutex mutex_;
  std::tuple<std::map<uint32_t, Octets>, std::map<uint32_t, Records>, std::map<uint32_t, Longs>,
             std::map<uint32_t, Doubles>, std::map<uint32_t, Strings>>
      replies_;
};

}  // namespace orbench
