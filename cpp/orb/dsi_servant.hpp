// The Bench object served through the dynamic skeleton interface (the shape dsi, PROTOCOL.md): send_* and
// echo_* decoded from the ServerRequest with the IDL's TypeCodes, counted like the static servant's. Built
// where the ORB's port has the dynamic interfaces (ORBENCH_HAS_DYNAMIC in its orbench_stubs.hpp).
#pragma once

#include "server_kit.hpp"
#include "orb_port.hpp"

namespace orbench {

#ifdef ORBENCH_HAS_DYNAMIC
class DsiBench : public PortableServer::DynamicImplementation {
 public:
  DsiBench(CORBA::ORB_ptr orb, BenchCore& core) : orb_(CORBA::ORB::_duplicate(orb)), core_(core) {}
  void invoke(CORBA::ServerRequest_ptr request) override;
  char* _primary_interface(const PortableServer::ObjectId&, PortableServer::POA_ptr) override;

 private:
  CORBA::ORB_var orb_;
  BenchCore& core_;
};
#endif

// Activates a DsiBench in `poa` and returns its reference; nil where the ORB's port has no DSI.
CORBA::Object_ptr activate_dsi(CORBA::ORB_ptr orb, PortableServer::POA_ptr poa, BenchCore& core);

}  // namespace orbench
