// The Thrift transport both workers of a thrift-cpp target use (--transport): buffered, Thrift's default (a
// 512-byte buffer each way, as shipped), or framed (each message behind its 4-byte length).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include <thrift/transport/TBufferTransports.h>

namespace orbench {

enum class ThriftTransport { buffered, framed };

// "" (absent) is buffered; throws std::invalid_argument for a name it does not know.
inline ThriftTransport thrift_transport(const std::string& name) {
  if (name.empty() || name == "buffered") return ThriftTransport::buffered;
  if (name == "framed") return ThriftTransport::framed;
  throw std::invalid_argument("bad --transport \"" + name + "\": buffered or framed");
}

inline std::shared_ptr<apache::thrift::transport::TTransportFactory> transport_factory(ThriftTransport kind) {
  using namespace apache::thrift::transport;
  if (kind == ThriftTransport::framed) return std::make_shared<TFramedTransportFactory>();
  return std::make_shared<TBufferedTransportFactory>();
}

}  // namespace orbench
