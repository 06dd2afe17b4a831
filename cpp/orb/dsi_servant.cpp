#include "dsi_servant.hpp"

#include <cstring>
#include <string>

#include "bench_servant.hpp"

namespace orbench {

#ifdef ORBENCH_HAS_DYNAMIC
namespace {

// One in argument of the IDL type P (TypeCode `tc`) decoded, counted, and returned for echo_*.
template <PayloadType T, typename P>
void serve(CORBA::ORB_ptr orb, CORBA::ServerRequest_ptr request, CORBA::TypeCode_ptr tc, bool echo,
           BenchCore& core) {
  CORBA::NVList_ptr args;
  orb->create_list(1, args);
  CORBA::Any argument;
  argument.replace(tc, nullptr);  // the type only: arguments() decodes into it
  args->add_value("data", argument, CORBA::ARG_IN);
  request->arguments(args);
  const P* data = nullptr;
  if (!(*args->item(0)->value() >>= data)) throw CORBA::BAD_PARAM();
  core.count<T>(*data, 0);
  if (echo) {
    CORBA::Any result;
    result <<= *data;  // copies, as the static echo servant does
    request->set_result(result);
  }
}

}  // namespace

void DsiBench::invoke(CORBA::ServerRequest_ptr request) {
  const std::string op = request->operation();
  const bool echo = op.rfind("echo_", 0) == 0;
  if (op == "send" || op == "echo_octets") return serve<PayloadType::octets, orbench::Octets>(orb_, request, orbench::_tc_Octets, echo, core_);
  if (op == "send_records" || op == "echo_records") {
    return serve<PayloadType::records, orbench::Records>(orb_, request, orbench::_tc_Records, echo, core_);
  }
  if (op == "send_longs" || op == "echo_longs") return serve<PayloadType::longs, orbench::Longs>(orb_, request, orbench::_tc_Longs, echo, core_);
  if (op == "send_doubles" || op == "echo_doubles") {
    return serve<PayloadType::doubles, orbench::Doubles>(orb_, request, orbench::_tc_Doubles, echo, core_);
  }
  if (op == "send_strings" || op == "echo_strings") {
    return serve<PayloadType::strings, orbench::Strings>(orb_, request, orbench::_tc_Strings, echo, core_);
  }
  throw CORBA::BAD_OPERATION();  // the DSI object serves send_* and echo_* only
}

char* DsiBench::_primary_interface(const PortableServer::ObjectId&, PortableServer::POA_ptr) {
  return CORBA::string_dup("IDL:orbench/Bench:1.0");
}

CORBA::Object_ptr activate_dsi(CORBA::ORB_ptr orb, PortableServer::POA_ptr poa, BenchCore& core) {
  PortableServer::ServantBase_var servant = new DsiBench(orb, core);
  PortableServer::ObjectId_var id = poa->activate_object(servant.in());
  return poa->id_to_reference(id.in());
}
#else
CORBA::Object_ptr activate_dsi(CORBA::ORB_ptr, PortableServer::POA_ptr, BenchCore&) {
  return CORBA::Object::_nil();
}
#endif

}  // namespace orbench
