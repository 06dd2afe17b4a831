// orbench-omniorb-loop: the reference of `orbench fidelity`'s omniORB row. A minimal omniORB server and client
// of orbench.idl written for that comparison and sharing nothing with orbench's workers (no command loop, run
// sequence, counters or samples code): the client makes one stub call per iteration between one pair of clock
// reads, the servant's operations do nothing. orbench's omniORB worker is compared against it, same calls,
// same payload, same pinning.
//
//   orbench-omniorb-loop server HOST
//       prints its IOR on one line, serves until its stdin closes
//   orbench-omniorb-loop client IOR twoway|oneway PAYLOAD_BYTES CALLS WARMUP SAMPLES_FILE
//       WARMUP untimed then CALLS timed calls, twoway send(octets) or oneway push(octets); writes one
//       little-endian int64 per timed call (ns, clock_gettime(CLOCK_MONOTONIC), the clock of orbench's C++
//       workers) to SAMPLES_FILE. Oneway: a twoway counters() call after the warm-up and after the timed calls
//       (omniORB serves a connection's requests in order, on that connection's thread by default, so its reply
//       means every push before it was dispatched); prints the receiver's messages/s from the first timed call
//       to the second one's reply.
//   orbench-omniorb-loop slices IOR twoway|oneway
//       one ORB and object reference; for each stdin line "PAYLOAD_BYTES CALLS WARMUP SAMPLES_FILE" the run
//       above, then "done" on stdout.
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "orbench.hh"

namespace {

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// Every operation of the interface, doing nothing beyond what its signature needs.
class NullBench : public virtual POA_orbench::Bench {
 public:
  explicit NullBench(CORBA::ORB_ptr orb) : orb_(CORBA::ORB::_duplicate(orb)) {}
  void push(const orbench::Octets&) override {}
  void push_records(const orbench::Records&) override {}
  void push_longs(const orbench::Longs&) override {}
  void push_doubles(const orbench::Doubles&) override {}
  void push_strings(const orbench::Strings&) override {}
  void send(const orbench::Octets&) override {}
  void send_records(const orbench::Records&) override {}
  void send_longs(const orbench::Longs&) override {}
  void send_doubles(const orbench::Doubles&) override {}
  void send_strings(const orbench::Strings&) override {}
  orbench::Octets* echo_octets(const orbench::Octets& data) override { return new orbench::Octets(data); }
  orbench::Records* echo_records(const orbench::Records& data) override { return new orbench::Records(data); }
  orbench::Longs* echo_longs(const orbench::Longs& data) override { return new orbench::Longs(data); }
  orbench::Doubles* echo_doubles(const orbench::Doubles& data) override { return new orbench::Doubles(data); }
  orbench::Strings* echo_strings(const orbench::Strings& data) override { return new orbench::Strings(data); }
  orbench::SyncResult sync(CORBA::ULongLong, CORBA::ULong) override { return orbench::SyncResult{true, {0, 0}}; }
  orbench::Counters counters() override { return orbench::Counters{0, 0}; }
  void reset_counters() override {}
  orbench::Strings* references(CORBA::ULong, CORBA::ULong) override { return new orbench::Strings; }
  void shutdown() override { orb_->shutdown(false); }

 private:
  CORBA::ORB_var orb_;
};

int serve(const std::string& host) {
  std::string endpoint = "giop:tcp:" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":";
  const char* args[] = {"orbench-omniorb-loop", "-ORBendPoint", endpoint.c_str(), nullptr};
  int argc = 3;
  CORBA::ORB_var orb = CORBA::ORB_init(argc, const_cast<char**>(args));
  CORBA::Object_var object = orb->resolve_initial_references("RootPOA");
  PortableServer::POA_var poa = PortableServer::POA::_narrow(object.in());
  PortableServer::ServantBase_var servant = new NullBench(orb.in());
  PortableServer::ObjectId_var id = poa->activate_object(servant.in());
  object = poa->id_to_reference(id.in());
  CORBA::String_var ior = orb->object_to_string(object.in());
  poa->the_POAManager()->activate();
  std::printf("%s\n", ior.in());
  std::fflush(stdout);
  // Stops when whoever started it goes away (its stdin closes).
  std::thread([&orb] {
    char buffer[256];
    while (read(STDIN_FILENO, buffer, sizeof buffer) > 0) {
    }
    orb->shutdown(false);
  }).detach();
  orb->run();
  orb->destroy();
  return 0;
}

// One run on the object: WARMUP untimed calls, then CALLS timed ones, their samples to SAMPLES_PATH.
int run(orbench::Bench_ptr bench, bool oneway, CORBA::ULong payload_bytes, size_t calls, size_t warmup,
        const char* samples_path) {
  orbench::Octets payload;
  payload.length(payload_bytes);
  for (CORBA::ULong i = 0; i < payload_bytes; ++i) payload[i] = static_cast<CORBA::Octet>(i & 0xff);
  std::vector<int64_t> samples(calls);  // allocated and touched before timing

  if (oneway) {
    for (size_t i = 0; i < warmup; ++i) bench->push(payload);
    bench->counters();
    const int64_t first = now_ns();
    for (size_t i = 0; i < calls; ++i) {
      const int64_t before = now_ns();
      bench->push(payload);
      samples[i] = now_ns() - before;
    }
    bench->counters();
    std::printf("receiver_msgs_per_s %.1f\n", static_cast<double>(calls) * 1e9 / static_cast<double>(now_ns() - first));
  } else {
    for (size_t i = 0; i < warmup; ++i) bench->send(payload);
    for (size_t i = 0; i < calls; ++i) {
      const int64_t before = now_ns();
      bench->send(payload);
      samples[i] = now_ns() - before;
    }
  }

  std::FILE* out = std::fopen(samples_path, "wb");
  if (out == nullptr || std::fwrite(samples.data(), sizeof(int64_t), calls, out) != calls || std::fclose(out) != 0) {
    std::fprintf(stderr, "orbench-omniorb-loop: cannot write %s\n", samples_path);
    return 1;
  }
  return 0;
}

// The client's ORB and object reference; `lines`: one run per stdin line "PAYLOAD_BYTES CALLS WARMUP
// SAMPLES_FILE", each answered "done" (the harness alternates these runs with its own worker's trials).
int call(const char* ior, bool oneway, CORBA::ULong payload_bytes, size_t calls, size_t warmup,
         const char* samples_path, bool lines) {
  int argc = 1;
  const char* args[] = {"orbench-omniorb-loop", nullptr};
  CORBA::ORB_var orb = CORBA::ORB_init(argc, const_cast<char**>(args));
  CORBA::Object_var object = orb->string_to_object(ior);
  orbench::Bench_var bench = orbench::Bench::_narrow(object.in());
  int status = 0;
  if (!lines) {
    status = run(bench.in(), oneway, payload_bytes, calls, warmup, samples_path);
  } else {
    unsigned long size = 0;
    size_t n = 0, w = 0;
    char path[4096];
    while (status == 0 && std::scanf("%lu %zu %zu %4095s", &size, &n, &w, path) == 4) {
      status = run(bench.in(), oneway, static_cast<CORBA::ULong>(size), n, w, path);
      std::printf("done\n");
      std::fflush(stdout);
    }
  }
  orb->destroy();
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "samples are written in the machine's byte order");
  try {
    if (argc == 3 && std::string(argv[1]) == "server") return serve(argv[2]);
    if (argc == 8 && std::string(argv[1]) == "client") {
      return call(argv[2], std::string(argv[3]) == "oneway", static_cast<CORBA::ULong>(std::strtoul(argv[4], nullptr, 10)),
                  std::strtoull(argv[5], nullptr, 10), std::strtoull(argv[6], nullptr, 10), argv[7], false);
    }
    if (argc == 4 && std::string(argv[1]) == "slices") {
      return call(argv[2], std::string(argv[3]) == "oneway", 0, 0, 0, nullptr, true);
    }
  } catch (const CORBA::Exception& error) {
    std::fprintf(stderr, "orbench-omniorb-loop: CORBA exception %s\n", error._name());
    return 1;
  }
  std::fprintf(stderr,
               "usage: orbench-omniorb-loop server HOST\n"
               "       orbench-omniorb-loop client IOR twoway|oneway PAYLOAD_BYTES CALLS WARMUP SAMPLES_FILE\n"
               "       orbench-omniorb-loop slices IOR twoway|oneway\n");
  return 2;
}
