// The counters in the Bench service's proto messages, for both of its implementations (grpc_server.cpp's on the
// synchronous API, grpc_callback_service.cpp's on the callback API).
#pragma once

#include "message_counter.hpp"
#include "orbench.grpc.pb.h"

namespace orbench {

inline void to_proto(const Counts& counts, Counters* out) {
  out->set_messages(counts.messages);
  out->set_bytes(counts.bytes);
}

inline void to_proto(const SyncOutcome& outcome, SyncResult* out) {
  out->set_complete(outcome.complete);
  to_proto(outcome.received, out->mutable_received());
}

}  // namespace orbench
