// The capnp-cpp client's payloads and the table of its operations: Cap'n Proto refuses underscores in names,
// so the schema the translator writes calls push_records pushRecords (harness/orbench/idl/emitters/capnp.py),
// and this binding names each IDL operation by that name, where the other bindings use idl_client.hpp's table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "orbench.capnp.h"
#include "payload_values.hpp"
#include "run_spec.hpp"

namespace orbench::capnp_binding {

using schema::Bench;

// A record as the client holds it before building a request: the IDL's fields as members (fill_record).
struct Record {
  int32_t id = 0;
  double value = 0;
  int16_t flags = 0;
  uint8_t kind = 0;
  uint8_t level = 0;
  bool operator==(const Record& other) const { return payload::same_record(*this, other); }
};
using Octets = std::vector<uint8_t>;
using Records = std::vector<Record>;
using Longs = std::vector<int32_t>;
using Doubles = std::vector<double>;
using Strings = std::vector<std::string>;

// The IDL's operations of payload type T, by their names in the schema.
template <PayloadType T>
auto push_request(Bench::Client& c) {
  if constexpr (T == PayloadType::octets) return c.pushRequest();
  else if constexpr (T == PayloadType::records) return c.pushRecordsRequest();
  else if constexpr (T == PayloadType::longs) return c.pushLongsRequest();
  else if constexpr (T == PayloadType::doubles) return c.pushDoublesRequest();
  else return c.pushStringsRequest();
}
template <PayloadType T>
auto send_request(Bench::Client& c) {
  if constexpr (T == PayloadType::octets) return c.sendRequest();
  else if constexpr (T == PayloadType::records) return c.sendRecordsRequest();
  else if constexpr (T == PayloadType::longs) return c.sendLongsRequest();
  else if constexpr (T == PayloadType::doubles) return c.sendDoublesRequest();
  else return c.sendStringsRequest();
}
template <PayloadType T>
auto echo_request(Bench::Client& c) {
  if constexpr (T == PayloadType::octets) return c.echoOctetsRequest();
  else if constexpr (T == PayloadType::records) return c.echoRecordsRequest();
  else if constexpr (T == PayloadType::longs) return c.echoLongsRequest();
  else if constexpr (T == PayloadType::doubles) return c.echoDoublesRequest();
  else return c.echoStringsRequest();
}

// The payload copied into a request's `data`: Cap'n Proto builds every message in its own segments, so a
// call copies its payload once, as a CORBA stub marshals it.
template <PayloadType T, class Request, class P>
void set_data(Request& request, const P& payload) {
  if constexpr (T == PayloadType::octets) {
    request.setData(capnp::Data::Reader(payload.data(), payload.size()));
  } else {
    auto list = request.initData(static_cast<unsigned>(payload.size()));
    for (unsigned i = 0; i < payload.size(); ++i) {
      if constexpr (T == PayloadType::records) {
        auto r = list[i];
        r.setId(payload[i].id), r.setValue(payload[i].value), r.setFlags(payload[i].flags);
        r.setKind(payload[i].kind), r.setLevel(payload[i].level);
      } else if constexpr (T == PayloadType::strings) {
        list.set(i, capnp::Text::Reader(payload[i].data(), payload[i].size()));
      } else {
        list.set(i, payload[i]);
      }
    }
  }
}

// A reply's list copied into `out` (reused between calls), so that it can be compared with the request.
template <PayloadType T, class Reader, class P>
void copy_out(const Reader& list, P& out) {
  if constexpr (T == PayloadType::octets) {
    out.assign(list.begin(), list.end());
    return;
  }
  out.resize(list.size());
  for (unsigned i = 0; i < list.size(); ++i) {
    if constexpr (T == PayloadType::records) {
      out[i] = Record{list[i].getId(), list[i].getValue(), list[i].getFlags(), list[i].getKind(), list[i].getLevel()};
    } else if constexpr (T == PayloadType::strings) {
      out[i].assign(list[i].cStr(), list[i].size());
    } else {
      out[i] = list[i];
    }
  }
}

}  // namespace orbench::capnp_binding
