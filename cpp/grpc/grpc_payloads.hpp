// The payload messages of the proto the IDL translator writes (Octets, Records, ... with one field `items`),
// filled with the elements of PROTOCOL.md ("Payload types"): the client's requests and, from element 1, the
// replies of the Shapes service's out, return and inout (its server and its client's checks).
#pragma once

#include <cstdint>
#include <string>
#include <tuple>

#include "orbench.grpc.pb.h"
#include "payload_values.hpp"

namespace orbench {

// Elements first .. first + count - 1, replacing what `message` held.
template <PayloadType T, class M>
void fill_message(M& message, uint64_t count, uint64_t first = 0) {
  message.clear_items();
  for (uint64_t i = first; i < first + count; ++i) {
    if constexpr (T == PayloadType::octets) message.mutable_items()->push_back(static_cast<char>(payload::octet(i)));
    else if constexpr (T != PayloadType::records) message.add_items(payload::element<T>(i));
    else payload::set_record(*message.add_items(), i);
  }
}

// The request messages of out_* and return_* (the element count), in PayloadType order.
template <PayloadType T>
using OutRequest = std::tuple_element_t<static_cast<size_t>(T), std::tuple<OutOctetsRequest, OutRecordsRequest,
                                                                           OutLongsRequest, OutDoublesRequest,
                                                                           OutStringsRequest>>;
template <PayloadType T>
using ReturnRequest =
    std::tuple_element_t<static_cast<size_t>(T), std::tuple<ReturnOctetsRequest, ReturnRecordsRequest,
                                                            ReturnLongsRequest, ReturnDoublesRequest,
                                                            ReturnStringsRequest>>;

// The status raise_* fails with (gRPC has no user exceptions; the proto's comment on Refused, PROTOCOL.md "gRPC
// and Ice"): FAILED_PRECONDITION, its message the exception's name and count.
constexpr grpc::StatusCode kRefusedCode = grpc::StatusCode::FAILED_PRECONDITION;
inline std::string refused_message(uint64_t count) { return "Refused count=" + std::to_string(count); }

}  // namespace orbench
