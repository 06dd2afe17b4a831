#include "grpc_client.hpp"

#include <google/protobuf/util/message_differencer.h>

#include "connect_options.hpp"
#include "grpc_errors.hpp"
#include "payload_values.hpp"

namespace orbench {

namespace {

constexpr const char kScheme[] = "grpc://";

// The Bench service's operations per payload type, so that one timed loop serves them all. The payload
// argument of open_push only chooses the overload.
using Stub = orbench::Bench::Stub;
using grpc::ClientContext;
using grpc::Status;
Status send(Stub& s, ClientContext* c, const orbench::Octets& m, orbench::Empty* r) { return s.send(c, m, r); }
Status send(Stub& s, ClientContext* c, const orbench::Records& m, orbench::Empty* r) { return s.send_records(c, m, r); }
Status send(Stub& s, ClientContext* c, const orbench::Longs& m, orbench::Empty* r) { return s.send_longs(c, m, r); }
Status send(Stub& s, ClientContext* c, const orbench::Doubles& m, orbench::Empty* r) { return s.send_doubles(c, m, r); }
Status send(Stub& s, ClientContext* c, const orbench::Strings& m, orbench::Empty* r) { return s.send_strings(c, m, r); }
Status echo(Stub& s, ClientContext* c, const orbench::Octets& m, orbench::Octets* r) { return s.echo_octets(c, m, r); }
Status echo(Stub& s, ClientContext* c, const orbench::Records& m, orbench::Records* r) { return s.echo_records(c, m, r); }
Status echo(Stub& s, ClientContext* c, const orbench::Longs& m, orbench::Longs* r) { return s.echo_longs(c, m, r); }
Status echo(Stub& s, ClientContext* c, const orbench::Doubles& m, orbench::Doubles* r) { return s.echo_doubles(c, m, r); }
Status echo(Stub& s, ClientContext* c, const orbench::Strings& m, orbench::Strings* r) { return s.echo_strings(c, m, r); }
auto open_push(Stub& s, ClientContext* c, orbench::Empty* r, const orbench::Octets&) { return s.push(c, r); }
auto open_push(Stub& s, ClientContext* c, orbench::Empty* r, const orbench::Records&) { return s.push_records(c, r); }
auto open_push(Stub& s, ClientContext* c, orbench::Empty* r, const orbench::Longs&) { return s.push_longs(c, r); }
auto open_push(Stub& s, ClientContext* c, orbench::Empty* r, const orbench::Doubles&) { return s.push_doubles(c, r); }
auto open_push(Stub& s, ClientContext* c, orbench::Empty* r, const orbench::Strings&) { return s.push_strings(c, r); }

// Ends a stream at once: cancelled, so that a frozen or dead server cannot block the client in Finish().
template <typename Message>
Status close_stream(PushStream<Message>& stream) {
  stream.context.TryCancel();
  return stream.writer->Finish();
}

}  // namespace

std::string grpc_endpoint_of(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  return std::string(kScheme) + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string grpc_target_of(const std::string& endpoint) {
  const std::string scheme = kScheme;
  if (endpoint.compare(0, scheme.size(), scheme) != 0 || endpoint.size() == scheme.size()) {
    throw WorkerError(ErrorKind::usage, "bad endpoint \"" + endpoint + "\": expected grpc://HOST:PORT");
  }
  return endpoint.substr(scheme.size());
}

nlohmann::ordered_json GrpcBenchClient::worker_info() const {
  return {{"role", "client"},     {"target", "grpc-cpp"},        {"language", "c++"},
          {"orb", "gRPC"},        {"orb_version", grpc::Version()}, {"runtime", cxx_runtime_description()}};
}

void GrpcBenchClient::connect(const std::string& endpoint, const nlohmann::json& options) {
  refuse_connect_options(parse_connect_options(options), "gRPC");
  const std::string target = grpc_target_of(endpoint);
  disconnect();
  channel_ = grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
  stub_ = orbench::Bench::NewStub(channel_);
  try {
    reset_counters();
  } catch (...) {
    disconnect();
    throw;
  }
}

void GrpcBenchClient::disconnect() {
  std::apply([](auto&... stream) { ((stream ? (close_stream(*stream), stream.reset()) : void()), ...); }, streams_);
  stub_.reset();
  channel_.reset();
}

BenchDriver& GrpcBenchClient::driver() {
  if (!stub_) throw WorkerError(ErrorKind::transport, "not connected");
  return *this;
}

template <typename Message>
PushStream<Message>& GrpcBenchClient::push_stream() {
  auto& stream = std::get<std::unique_ptr<PushStream<Message>>>(streams_);
  if (!stream) {
    auto opened = std::make_unique<PushStream<Message>>();
    opened->writer = open_push(*stub_, &opened->context, &opened->reply, Message{});
    stream = std::move(opened);
  }
  return *stream;
}

void GrpcBenchClient::prepare(const RunSpec& spec) {
  mode_ = spec.mode;
  payload_type_ = spec.payload_type;
  const uint64_t count = spec.payload_bytes / payload_unit_bytes(spec.payload_type);
  switch (spec.payload_type) {
    case PayloadType::octets: {
      std::string& bytes = *octets_.mutable_items();
      bytes.resize(count);
      for (uint64_t i = 0; i < count; ++i) bytes[i] = static_cast<char>(payload::octet(i));
      if (mode_ == Mode::oneway) push_stream<orbench::Octets>();
      break;
    }
    case PayloadType::records:
      records_.clear_items();
      records_.mutable_items()->Reserve(static_cast<int>(count));
      for (uint64_t i = 0; i < count; ++i) {
        orbench::Record* record = records_.add_items();
        record->set_id(payload::record_id(i));
        record->set_value(payload::record_value(i));
        record->set_flags(payload::record_flags(i));
        record->set_kind(payload::record_kind(i));
        record->set_level(payload::record_level(i));
      }
      if (mode_ == Mode::oneway) push_stream<orbench::Records>();
      break;
    case PayloadType::longs:
      longs_.mutable_items()->Resize(static_cast<int>(count), 0);
      for (uint64_t i = 0; i < count; ++i) longs_.set_items(static_cast<int>(i), payload::long_value(i));
      if (mode_ == Mode::oneway) push_stream<orbench::Longs>();
      break;
    case PayloadType::doubles:
      doubles_.mutable_items()->Resize(static_cast<int>(count), 0.0);
      for (uint64_t i = 0; i < count; ++i) doubles_.set_items(static_cast<int>(i), payload::double_value(i));
      if (mode_ == Mode::oneway) push_stream<orbench::Doubles>();
      break;
    case PayloadType::strings:
      strings_.clear_items();
      for (uint64_t i = 0; i < count; ++i) strings_.add_items(payload::string_value(i));
      if (mode_ == Mode::oneway) push_stream<orbench::Strings>();
      break;
  }
}

void GrpcBenchClient::reset_counters() {
  grpc::ClientContext context;
  orbench::Empty request, reply;
  check_status("reset_counters", stub_->reset_counters(&context, request, &reply));
}

Counts GrpcBenchClient::counters() {
  grpc::ClientContext context;
  orbench::Empty request;
  orbench::Counters reply;
  check_status("counters", stub_->counters(&context, request, &reply));
  return {reply.messages(), reply.bytes()};
}

SyncOutcome GrpcBenchClient::sync(uint64_t expected, uint32_t timeout_ms) {
  grpc::ClientContext context;
  orbench::SyncRequest request;
  request.set_expected(expected);
  request.set_timeout_ms(timeout_ms);
  orbench::SyncResult reply;
  check_status("sync", stub_->sync(&context, request, &reply));
  return {reply.complete(), {reply.received().messages(), reply.received().bytes()}};
}

void GrpcBenchClient::untimed_calls(uint64_t calls) {
  std::vector<int64_t> ignored(calls);
  timed_calls(ignored.data(), calls);
}

template <typename Message>
TimedSpan GrpcBenchClient::timed_calls_with(const Message& payload, int64_t* samples_ns, uint64_t calls) {
  Stub& stub = *stub_;
  switch (mode_) {
    case Mode::oneway: {
      PushStream<Message>& stream = push_stream<Message>();
      grpc::ClientWriter<Message>& writer = *stream.writer;
      return timed_loop(
          samples_ns, calls,
          [&](uint64_t i) {
            if (!writer.Write(payload)) {
              // The stream is broken (server gone): its status says why; the next oneway run opens a new one.
              const Status status = close_stream(stream);
              std::get<std::unique_ptr<PushStream<Message>>>(streams_).reset();
              throw grpc_error("push stream write " + std::to_string(i),
                               status.ok() ? Status(grpc::StatusCode::UNAVAILABLE, "stream closed") : status);
            }
          },
          [](uint64_t) {});
    }
    case Mode::twoway: {
      orbench::Empty reply;
      return timed_loop(
          samples_ns, calls,
          [&](uint64_t) {
            // A ClientContext per call: gRPC does not allow reusing one, so making it is part of every call.
            grpc::ClientContext context;
            check_status("run", send(stub, &context, payload, &reply));
          },
          [](uint64_t) {});
    }
    case Mode::echo: {
      Message reply;
      return timed_loop(
          samples_ns, calls,
          [&](uint64_t) {
            grpc::ClientContext context;
            check_status("run", echo(stub, &context, payload, &reply));
          },
          [&](uint64_t i) {
            if (!google::protobuf::util::MessageDifferencer::Equals(reply, payload)) {
              throw WorkerError(ErrorKind::remote, "echo reply of call " + std::to_string(i) + " differs from the request");
            }
          });
    }
  }
  return {};
}

TimedSpan GrpcBenchClient::timed_calls(int64_t* samples_ns, uint64_t calls) {
  switch (payload_type_) {
    case PayloadType::octets: return timed_calls_with(octets_, samples_ns, calls);
    case PayloadType::records: return timed_calls_with(records_, samples_ns, calls);
    case PayloadType::longs: return timed_calls_with(longs_, samples_ns, calls);
    case PayloadType::doubles: return timed_calls_with(doubles_, samples_ns, calls);
    case PayloadType::strings: return timed_calls_with(strings_, samples_ns, calls);
  }
  return {};
}

}  // namespace orbench
