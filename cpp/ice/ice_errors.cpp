#include "ice_errors.hpp"

namespace orbench {

WorkerError ice_error(const std::string& what, const Ice::Exception& error) {
  const bool transport = dynamic_cast<const Ice::SocketException*>(&error) != nullptr ||
                         dynamic_cast<const Ice::TimeoutException*>(&error) != nullptr ||
                         dynamic_cast<const Ice::CloseConnectionException*>(&error) != nullptr ||
                         dynamic_cast<const Ice::ConnectionManuallyClosedException*>(&error) != nullptr ||
                         dynamic_cast<const Ice::CommunicatorDestroyedException*>(&error) != nullptr ||
                         dynamic_cast<const Ice::DNSException*>(&error) != nullptr;
  return WorkerError(transport ? ErrorKind::transport : ErrorKind::remote, what + ": " + error.what());
}

}  // namespace orbench
