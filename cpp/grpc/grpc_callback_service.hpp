// The Bench and Shapes services on gRPC's callback API (grpc::CallbackServerContext and reactors), the grpc-cpp server's
// second implementation (--api callback): handlers run on gRPC's own callback threads and return at once,
// and a oneway push stream holds no thread while it is open, where the synchronous API holds one per stream.
#pragma once

#include <memory>

#include <grpcpp/grpcpp.h>

#include "server_kit.hpp"

namespace orbench {

std::unique_ptr<grpc::Service> callback_bench_service(BenchCore& core);
// The invocation shapes (grpc_shape_replies.hpp), served beside Bench.
std::unique_ptr<grpc::Service> callback_shapes_service(BenchCore& core);

}  // namespace orbench
