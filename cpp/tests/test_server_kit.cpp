// The server kit: counted payload bytes by type, the parsed command line (--target, options a server does not
// take, its own values, the middleware's arguments), BenchCore's stop asked for before and after the server
// listens, and SCHEME://HOST:PORT endpoints.
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "check.hpp"
#include "endpoint_url.hpp"
#include "server_kit.hpp"
#include "worker_error.hpp"

using namespace orbench;

namespace {

// The CORBA mapping's shape: length(), and string elements that give their characters through in().
template <typename T>
struct CorbaLike {
  std::vector<T> items;
  unsigned long length() const { return items.size(); }
  const T& operator[](unsigned long i) const { return items[i]; }
};
struct CorbaString {
  const char* text;
  const char* in() const { return text; }
};

ServerConfig parse(std::vector<std::string> args, const ServerSpec& spec) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return parse_server_config(static_cast<int>(argv.size()), argv.data(), spec);
}

bool refused(std::vector<std::string> args, const ServerSpec& spec, const std::string& words) {
  try {
    parse(std::move(args), spec);
  } catch (const std::invalid_argument& e) {
    return std::string(e.what()).find(words) != std::string::npos;
  }
  return false;
}

// Waits up to a second for `flag` (a stop runs on a thread of its own).
bool becomes_true(const std::atomic<bool>& flag) {
  for (int i = 0; i < 1000 && !flag.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return flag.load();
}

}  // namespace

int main() {
  using P = PayloadType;
  CHECK(payload_bytes<P::octets>(std::string(1000, 'x')) == 1000);
  CHECK(payload_bytes<P::records>(std::vector<int>(62)) == 62 * 16);
  CHECK(payload_bytes<P::longs>(std::vector<int>(250)) == 1000);
  CHECK(payload_bytes<P::doubles>(std::vector<double>(125)) == 1000);
  CHECK(payload_bytes<P::strings>(std::vector<std::string>{"abc", "", "0123456789abcdef"}) == 19);
  CHECK(payload_bytes<P::records>(CorbaLike<int>{{1, 2, 3}}) == 48);
  CHECK(payload_bytes<P::strings>(CorbaLike<CorbaString>{{{"abc"}, {""}, {"de"}}}) == 5);
  CHECK(payload_bytes<P::strings>(std::vector<std::wstring>{L"abc", L"\u00e9"}) == 4);  // characters, not bytes

  ServerSpec spec{"thing-cpp", "Thing", "1.0"};
  spec.values = {"--transport"};
  spec.middleware_prefix = "--Thing.";
  spec.no_options_because = "Thing sets TCP_NODELAY";
  const ServerConfig plain = parse({"srv", "--host", "127.0.0.1", "--port", "0"}, spec);
  CHECK(plain.target == "thing-cpp" && plain.host == "127.0.0.1" && plain.port == 0 && plain.options.empty());
  const ServerConfig named = parse({"srv", "--target", "thing-cpp-2", "--transport", "framed", "--Thing.Trace=1",
                                    "--host", "::1", "--port", "4711"}, spec);
  CHECK(named.target == "thing-cpp-2" && named.port == 4711 && named.values.at("--transport") == "framed");
  CHECK(named.values.count("--target") == 0);
  CHECK(named.middleware_args == std::vector<std::string>{"--Thing.Trace=1"});
  CHECK(refused({"srv", "--host", "h", "--port", "1", "--option", "tcp_nodelay=false"}, spec,
                "thing-cpp sets no server options (Thing sets TCP_NODELAY)"));
  CHECK(refused({"srv", "--host", "h", "--port", "1", "--frobnicate"}, spec, "unknown argument \"--frobnicate\""));
  CHECK(refused({"srv", "--host", "h", "--port", "1", "--objects", "3"}, spec, "unknown argument \"--objects\""));
  ServerSpec orb_like = spec;
  orb_like.middleware_prefix = "-ORB";
  orb_like.middleware_arg_values = true;
  orb_like.takes_objects = true;
  const ServerConfig orb = parse({"srv", "-ORBtraceLevel", "10", "--host", "h", "--port", "1", "--objects", "3"},
                                 orb_like);
  CHECK(orb.middleware_args == (std::vector<std::string>{"-ORBtraceLevel", "10"}) && orb.objects == 3);
  CHECK(orb.values.count("--objects") == 0 && parse({"srv", "--host", "h", "--port", "1"}, orb_like).objects == 1);
  CHECK(refused({"srv", "--host", "h", "--port", "1", "--objects", "0"}, orb_like, "bad --objects \"0\""));
  const ServerConfig threads = parse({"srv", "--host", "h", "--port", "1", "--transport", "12"}, spec);
  CHECK(threads.integer("--transport", 1, 1, 64, "a number") == 12 && threads.integer("--other", 7, 1, 9, "") == 7);
  bool bad_integer = false;
  try {
    threads.integer("--transport", 1, 1, 4, "a number of threads, 1 to 4");
  } catch (const std::invalid_argument& e) {
    bad_integer = std::string(e.what()) == "bad --transport \"12\": a number of threads, 1 to 4";
  }
  CHECK(bad_integer);
  ServerSpec taking = spec;
  taking.takes_options = true;
  CHECK(parse({"srv", "--host", "h", "--port", "1", "--option", "tcp_nodelay=false"}, taking).options.tcp_nodelay
        == false);

  // A stop asked for before the server listens happens when it does; later ones are ignored.
  BenchCore early;
  early.shutdown();
  std::atomic<bool> early_stopped{false};
  early.on_shutdown([&] { early_stopped = true; });
  CHECK(becomes_true(early_stopped));
  BenchCore late;
  std::atomic<int> stops{0};
  std::atomic<bool> late_stopped{false};
  late.on_shutdown([&] { ++stops, late_stopped = true; });
  CHECK(!late_stopped.load());
  late.shutdown();
  late.shutdown();
  CHECK(becomes_true(late_stopped));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(stops.load() == 1);

  late.count<P::longs>(std::vector<int>(3));
  CHECK(late.counters().messages == 1 && late.counters().bytes == 12);
  CHECK(late.sync(-5, 0).complete);                 // a negative expectation is 0: already reached
  CHECK(!late.sync(2, -1).complete);                // a negative timeout is 0: no wait
  CHECK(!late.sync(UINT64_MAX, 0u).complete);       // an unsigned expectation is not wrapped to a negative one
  CHECK(clamp_to<uint32_t>(int64_t{5'000'000'000}) == UINT32_MAX && clamp_to<uint32_t>(-3) == 0);
  CHECK(clamp_to<uint64_t>(uint32_t{7}) == 7);

  BenchCore objects;
  objects.track_objects(5);
  objects.count<P::longs>(std::vector<int>(2), 3);
  objects.count<P::longs>(std::vector<int>(2), 3);
  CHECK(objects.counter().objects_called() == 1 && objects.counters().messages == 2);
  const ObjectRange tail = objects.references(3u, 10u);
  const ObjectRange head = objects.references(-2LL, 2LL);
  const ObjectRange past = objects.references(9u, 1u);
  CHECK(tail.begin == 3 && tail.end == 5 && head.begin == 0 && head.end == 2 && past.begin == past.end);
  late.reset_counters();
  CHECK(late.counters().messages == 0);

  CHECK(endpoint_url("thrift", "10.0.0.1", 9090) == "thrift://10.0.0.1:9090");
  CHECK(endpoint_url("thrift", "::1", 9090) == "thrift://[::1]:9090");
  const UrlEndpoint v6 = parse_endpoint_url("thrift", "thrift://[::1]:9090");
  CHECK(v6.host == "::1" && v6.port == 9090);
  CHECK_WORKER_ERROR(parse_endpoint_url("thrift", "grpc://h:1"), ErrorKind::usage);
  CHECK_WORKER_ERROR(parse_endpoint_url("thrift", "thrift://h:"), ErrorKind::usage);
  CHECK_WORKER_ERROR(parse_endpoint_url("thrift", "thrift://h:70000"), ErrorKind::usage);
  return orbench_test::finish("test_server_kit");
}
