// The invocation shapes of the C++ ORB client (PROTOCOL.md, "Invocation shapes"): out, return, inout,
// exception, wstring, DII, DSI, collocated and AMI, each a timed loop over the standard CORBA C++ mapping. The
// DII, DSI and AMI need the port's dynamic interfaces (ORBENCH_HAS_DYNAMIC, ORBENCH_HAS_AMI). What is not
// CORBA's (the operation tables, an AMI run's bookkeeping, the faults): shape_calls.hpp.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <cwchar>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "bench_driver.hpp"
#include "bench_servant.hpp"
#include "corba_errors.hpp"
#include "idl_client.hpp"
#include "payload_values.hpp"
#include "shape_calls.hpp"

namespace orbench {

using OrbPayloads = std::tuple<orbench::Octets, orbench::Records, orbench::Longs, orbench::Doubles, orbench::Strings>;
template <PayloadType T>
using OrbSeq = std::tuple_element_t<static_cast<size_t>(T), OrbPayloads>;

#ifdef ORBENCH_HAS_AMI
template <PayloadType T, typename Stub, typename... Args>
void sendc_send(Stub& s, Args&&... a) {
  if constexpr (T == PayloadType::octets) s.sendc_send(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::records) s.sendc_send_records(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::longs) s.sendc_send_longs(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::doubles) s.sendc_send_doubles(std::forward<Args>(a)...);
  else s.sendc_send_strings(std::forward<Args>(a)...);
}
template <PayloadType T, typename Stub, typename... Args>
void sendc_echo(Stub& s, Args&&... a) {
  if constexpr (T == PayloadType::octets) s.sendc_echo_octets(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::records) s.sendc_echo_records(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::longs) s.sendc_echo_longs(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::doubles) s.sendc_echo_doubles(std::forward<Args>(a)...);
  else s.sendc_echo_strings(std::forward<Args>(a)...);
}
#endif

template <PayloadType T, class P>
bool orb_same(const P& a, const P& b) {
  if (a.length() != b.length()) return false;
  if constexpr (T == PayloadType::octets || T == PayloadType::longs) {
    return a.length() == 0 || std::memcmp(a.get_buffer(), b.get_buffer(), a.length() * sizeof(*a.get_buffer())) == 0;
  }
  for (CORBA::ULong i = 0; i < a.length(); ++i) {
    if constexpr (T == PayloadType::records) {
      if (!payload::same_record(a[i], b[i])) return false;
    } else if constexpr (T == PayloadType::strings) {
      if (std::strcmp(a[i].in(), b[i].in()) != 0) return false;
    } else if (a[i] != b[i]) {
      return false;
    }
  }
  return true;
}

inline bool same_wide(const orbench::WStrings& a, const orbench::WStrings& b) {
  if (a.length() != b.length()) return false;
  for (CORBA::ULong i = 0; i < a.length(); ++i) {
    if (std::wcscmp(a[i].in(), b[i].in()) != 0) return false;
  }
  return true;
}

template <PayloadType T>
OrbSeq<T> reply_payload(CORBA::ULong count) {
  OrbSeq<T> made;
  made.length(count);
  payload::fill_indexed<T>(made, count, 1);
  return made;
}

#ifdef ORBENCH_HAS_DYNAMIC
template <PayloadType T>
const char* send_operation() {
  constexpr const char* names[] = {"send", "send_records", "send_longs", "send_doubles", "send_strings"};
  return names[static_cast<size_t>(T)];
}
template <PayloadType T>
const char* echo_operation() {
  constexpr const char* names[] = {"echo_octets", "echo_records", "echo_longs", "echo_doubles", "echo_strings"};
  return names[static_cast<size_t>(T)];
}
template <PayloadType T>
CORBA::TypeCode_ptr payload_typecode() {
  if constexpr (T == PayloadType::octets) return orbench::_tc_Octets;
  else if constexpr (T == PayloadType::records) return orbench::_tc_Records;
  else if constexpr (T == PayloadType::longs) return orbench::_tc_Longs;
  else if constexpr (T == PayloadType::doubles) return orbench::_tc_Doubles;
  else return orbench::_tc_Strings;
}
#endif

#ifdef ORBENCH_HAS_AMI
// One reply handler per outstanding call: its reply (or exception) completes the call it was given.
class AmiSlot : public virtual POA_orbench::AMI_BenchHandler {
 public:
  AmiSlot(AmiRun& run, uint32_t slot) : run_(run), slot_(slot) {}
  void send() override;
  void send_records() override { send(); }
  void send_longs() override { send(); }
  void send_doubles() override { send(); }
  void send_strings() override { send(); }
  void echo_octets(const orbench::Octets& r) override;
  void echo_records(const orbench::Records& r) override;
  void echo_longs(const orbench::Longs& r) override;
  void echo_doubles(const orbench::Doubles& r) override;
  void echo_strings(const orbench::Strings& r) override;
  void sync(const orbench::SyncResult&) override { unexpected(); }
  void counters(const orbench::Counters&) override { unexpected(); }
  void reset_counters() override { unexpected(); }
  void references(const orbench::Strings&) override { unexpected(); }
  void shutdown() override { unexpected(); }
  void send_excep(Messaging::ExceptionHolder* h) override { failed(h); }
  void send_records_excep(Messaging::ExceptionHolder* h) override { failed(h); }
  void send_longs_excep(Messaging::ExceptionHolder* h) override { failed(h); }
  void send_doubles_excep(Messaging::ExceptionHolder* h) override { failed(h); }
  void send_strings_excep(Messaging::ExceptionHolder* h) override { failed(h); }
  void echo_octets_excep(Messaging::ExceptionHolder* h) override { failed(h); }
  void echo_records_excep(Messaging::ExceptionHolder* h) override { failed(h); }
  void echo_longs_excep(Messaging::ExceptionHolder* h) override { failed(h); }
  void echo_doubles_excep(Messaging::ExceptionHolder* h) override { failed(h); }
  void echo_strings_excep(Messaging::ExceptionHolder* h) override { failed(h); }
  void sync_excep(Messaging::ExceptionHolder* h) override { failed(h); }
  void counters_excep(Messaging::ExceptionHolder* h) override { failed(h); }
  void reset_counters_excep(Messaging::ExceptionHolder* h) override { failed(h); }
  void references_excep(Messaging::ExceptionHolder* h) override { failed(h); }
  void shutdown_excep(Messaging::ExceptionHolder* h) override { failed(h); }

 private:
  template <typename P>
  void echoed(const P& reply);
  void unexpected();
  void failed(Messaging::ExceptionHolder* holder);
  AmiRun& run_;
  uint32_t slot_;
};

inline void AmiSlot::send() { run_.finished(slot_, monotonic_ns(), true); }
template <typename P>
void AmiSlot::echoed(const P& reply) {
  const int64_t at = monotonic_ns();
  const bool ok = run_.check != nullptr && run_.check(run_.expected, &reply);
  run_.finished(slot_, at, ok, "echo reply differs from the request");
}
inline void AmiSlot::echo_octets(const orbench::Octets& r) { echoed(r); }
inline void AmiSlot::echo_records(const orbench::Records& r) { echoed(r); }
inline void AmiSlot::echo_longs(const orbench::Longs& r) { echoed(r); }
inline void AmiSlot::echo_doubles(const orbench::Doubles& r) { echoed(r); }
inline void AmiSlot::echo_strings(const orbench::Strings& r) { echoed(r); }
inline void AmiSlot::unexpected() { run_.finished(slot_, monotonic_ns(), false, "a reply of another operation"); }
inline void AmiSlot::failed(Messaging::ExceptionHolder* holder) {
  std::string why = "exception reply";
  try {
    holder->raise_exception();
  } catch (const CORBA::Exception& error) {
    why = describe_corba_exception(error);
  }
  run_.finished(slot_, monotonic_ns(), false, why);
}
#endif

// The shapes' state of one ORB client: its own POA for the collocated servant and the AMI handlers, the DSI
// object's reference, the wide payload.
class OrbShapes {
 public:
  static std::vector<std::string> kinds() {
    std::vector<std::string> out = {"in", "out", "return", "inout", "exception", "wstring", "collocated"};
#ifdef ORBENCH_HAS_DYNAMIC
    out.insert(out.end(), {"dii", "dsi"});
#endif
#ifdef ORBENCH_HAS_AMI
    out.push_back("ami");
#endif
    return out;
  }

  // Where shape `shape`'s calls go: `remote` (the endpoint's object), the DSI object, or a servant in this
  // process. Nil for the remote object itself.
  orbench::Bench_ptr target(CORBA::ORB_ptr orb, orbench::Bench_ptr remote, const ShapeSpec& shape) {
    if (shape.kind == "collocated") return local(orb);
    if (shape.kind == "dsi") {
      if (CORBA::is_nil(dsi_.in())) {
        orbench::Shapes_var shapes = orbench::Shapes::_narrow(remote);
        if (CORBA::is_nil(shapes.in())) throw WorkerError(ErrorKind::remote, "the server's object is no orbench::Shapes");
        CORBA::String_var reference = shapes->dsi_reference();
        if (std::strlen(reference.in()) == 0) throw WorkerError(ErrorKind::unsupported, "the server has no DSI object");
        CORBA::Object_var object = orb->string_to_object(reference.in());
        dsi_ = orbench::Bench::_unchecked_narrow(object.in());
        dsi_->_non_existent();  // bound to its connection before the first timed call
      }
      return dsi_.in();
    }
    return remote;
  }
  void forget_remote() { dsi_ = orbench::Bench::_nil(); }

  template <PayloadType T, class P>
  TimedSpan calls(CORBA::ORB_ptr orb, orbench::Bench_ptr remote, const ShapeSpec& shape, Mode mode,
                  const P& payload, int64_t* samples_ns, uint64_t calls) {
    const auto count = static_cast<CORBA::ULong>(payload.length());
    const std::string& kind = shape.kind;
    last_answer_ = nlohmann::ordered_json::object();
    if (kind == "dsi" || kind == "collocated") {
      orbench::Bench_ptr ref = target(orb, remote, shape);
      if (mode == Mode::twoway) return timed_loop(samples_ns, calls, [&](uint64_t) { call_send<T>(*ref, payload); }, [](uint64_t) {});
      return timed_loop(samples_ns, calls, [&](uint64_t) { return std::unique_ptr<P>(call_echo<T>(*ref, payload)); },
                        [&](uint64_t i, const std::unique_ptr<P>& reply) {
                          if (!orb_same<T>(*reply, payload)) wrong_reply("echo reply differs from the request", i);
                        });
    }
    orbench::Shapes_var shapes = orbench::Shapes::_narrow(remote);
    if (CORBA::is_nil(shapes.in())) throw WorkerError(ErrorKind::unsupported, "the server's object is no orbench::Shapes");
    orbench::Shapes_ptr s = shapes.in();
    if (kind == "out" || kind == "return") {
      const P expected = reply_payload<T>(count);
      auto check = [&](uint64_t i, const std::unique_ptr<P>& reply) {
        if (!orb_same<T>(*reply, expected)) wrong_reply("reply differs from elements 1.. of the payload", i);
      };
      if (kind == "out") {
        return timed_loop(samples_ns, calls, [&](uint64_t) {
          typename P::_var_type out;
          call_out<T>(*s, count, out.out());
          return std::unique_ptr<P>(out._retn());
        }, check);
      }
      return timed_loop(samples_ns, calls, [&](uint64_t) { return std::unique_ptr<P>(call_return<T>(*s, count)); }, check);
    }
    if (kind == "inout") {
      const P expected = reply_payload<T>(count);
      P work = payload;
      // The argument is put back after each call's second clock read, so every call sends the payload.
      return timed_loop(samples_ns, calls, [&](uint64_t) { call_inout<T>(*s, work); }, [&](uint64_t i) {
        if (!orb_same<T>(work, expected)) wrong_reply("inout argument not replaced by elements 1.. of the payload", i);
        work = payload;
      });
    }
    if (kind == "exception") {
      // 0: returned normally; 1: Refused with the right count; 2: Refused with another count.
      return timed_loop(samples_ns, calls, [&](uint64_t) {
        try {
          call_raise<T>(*s, payload);
        } catch (const orbench::Refused& refused) {
          return refused.count == count ? 1 : 2;
        }
        return 0;
      }, [&](uint64_t i, int outcome) {
        if (outcome == 0) wrong_reply("returned without raising orbench::Refused", i);
        if (outcome == 2) wrong_reply("orbench::Refused with another count than the request's", i);
      });
    }
    if (kind == "wstring") {
      if constexpr (T == PayloadType::strings) {
        if (wide_.length() != count) {
          wide_.length(count);
          for (CORBA::ULong i = 0; i < count; ++i) wide_[i] = CORBA::wstring_dup(payload::wstring_value(i).c_str());
        }
        if (mode == Mode::twoway) return timed_loop(samples_ns, calls, [&](uint64_t) { s->send_wstrings(wide_); }, [](uint64_t) {});
        return timed_loop(samples_ns, calls, [&](uint64_t) { return orbench::WStrings_var(s->echo_wstrings(wide_)); },
                          [&](uint64_t i, const orbench::WStrings_var& reply) {
                            if (!same_wide(reply.in(), wide_)) wrong_reply("wstring echo differs from the request", i);
                          });
      }
      throw WorkerError(ErrorKind::unsupported, "shape wstring takes payload_type strings only");
    }
#ifdef ORBENCH_HAS_DYNAMIC
    if (kind == "dii") {
      if (mode == Mode::twoway) {
        return timed_loop(samples_ns, calls, [&](uint64_t) {
          CORBA::Request_var request = remote->_request(send_operation<T>());
          request->add_in_arg() <<= payload;  // the Any copies the payload: part of what the DII costs
          request->set_return_type(CORBA::_tc_void);
          request->invoke();
          if (CORBA::Exception* error = request->env()->exception()) error->_raise();
        }, [](uint64_t) {});
      }
      return timed_loop(samples_ns, calls, [&](uint64_t) {
        CORBA::Request_var request = remote->_request(echo_operation<T>());
        request->add_in_arg() <<= payload;
        request->set_return_type(payload_typecode<T>());
        request->invoke();
        if (CORBA::Exception* error = request->env()->exception()) error->_raise();
        return request;  // read (and released) after the second clock read, as a static echo's reply
      }, [&](uint64_t i, const CORBA::Request_var& request) {
        const P* reply = nullptr;
        if (!(request->return_value() >>= reply) || !orb_same<T>(*reply, payload)) {
          wrong_reply("DII echo reply differs from the request", i);
        }
      });
    }
#endif
#ifdef ORBENCH_HAS_AMI
    if (kind == "ami") return ami<T>(orb, remote, shape.outstanding, mode, payload, samples_ns, calls);
#endif
    throw WorkerError(ErrorKind::unsupported, "shape \"" + shape.name() + "\" not supported by this ORB's build");
  }

  // A collocated run counts on the servant in this process.
  bool collocated(const ShapeSpec& shape) const { return shape.kind == "collocated"; }
  orbench::Bench_ptr local(CORBA::ORB_ptr orb) {
    if (CORBA::is_nil(local_.in())) {
      PortableServer::POA_ptr p = poa(orb);
      local_directory_ = std::make_unique<ObjectDirectory>(orb);
      local_core_.track_objects(1);
      PortableServer::ServantBase_var servant = new BenchServant(local_core_, *local_directory_, 0);
      PortableServer::ObjectId_var id = p->activate_object(servant.in());
      CORBA::Object_var object = p->id_to_reference(id.in());
      local_ = orbench::Bench::_narrow(object.in());
    }
    return local_.in();
  }
  nlohmann::ordered_json answer() const { return last_answer_; }

 private:
  PortableServer::POA_ptr poa(CORBA::ORB_ptr orb) {
    if (CORBA::is_nil(poa_.in())) {
      CORBA::Object_var object = orb->resolve_initial_references("RootPOA");
      poa_ = PortableServer::POA::_narrow(object.in());
      PortableServer::POAManager_var manager = poa_->the_POAManager();
      manager->activate();
    }
    return poa_.in();
  }

#ifdef ORBENCH_HAS_AMI
  template <PayloadType T, class P>
  TimedSpan ami(CORBA::ORB_ptr orb, orbench::Bench_ptr remote, uint32_t outstanding, Mode mode, const P& payload,
                int64_t* samples_ns, uint64_t calls) {
    AmiRun run(samples_ns);
    run.set_slots(outstanding, injected_fault() == "ami_lost");
    if (mode == Mode::echo) {
      run.expected = &payload;
      run.check = [](const void* expected, const void* reply) {
        return orb_same<T>(*static_cast<const P*>(reply), *static_cast<const P*>(expected));
      };
    }
    std::vector<orbench::AMI_BenchHandler_var> handlers;
    std::vector<PortableServer::ObjectId_var> ids;
    PortableServer::POA_ptr p = poa(orb);
    for (uint32_t k = 0; k < outstanding; ++k) {
      PortableServer::ServantBase_var servant = new AmiSlot(run, k);
      ids.emplace_back(p->activate_object(servant.in()));
      CORBA::Object_var object = p->id_to_reference(ids.back().in());
      handlers.emplace_back(orbench::AMI_BenchHandler::_narrow(object.in()));
    }
    const auto limit = reply_wait();
    TimedSpan span;
    std::string lost;
    for (uint64_t i = 0; i < calls && lost.empty(); ++i) {
      uint32_t slot = 0;
      if (!run.take_slot(slot, limit)) {
        lost = "no reply came for " + std::to_string(limit.count() / 1000) + " s with " + std::to_string(outstanding) + " outstanding";
        break;
      }
      const int64_t at = monotonic_ns();
      if (i == 0) span.start_ns = at;
      run.started(slot, i, at);
      if (mode == Mode::twoway) sendc_send<T>(*remote, handlers[slot].in(), payload);
      else sendc_echo<T>(*remote, handlers[slot].in(), payload);
    }
    const bool all = run.wait_all(limit);
    for (auto& id : ids) p->deactivate_object(id.in());
    last_answer_ = {{"replies", run.replies()}, {"outstanding", outstanding}, {"outstanding_max", run.outstanding_max()}};
    if (!run.error().empty()) throw WorkerError(ErrorKind::remote, "AMI: " + run.error());
    if (!lost.empty() || !all || run.replies() != calls) {
      throw WorkerError(ErrorKind::remote, "AMI: " + std::to_string(run.replies()) + " of " + std::to_string(calls) +
                                               " replies arrived" + (lost.empty() ? "" : " (" + lost + ")"));
    }
    span.end_ns = run.end_ns();
    return span;
  }
#endif

  PortableServer::POA_var poa_;
  orbench::Bench_var dsi_;
  orbench::Bench_var local_;
  BenchCore local_core_;  // the collocated servant's counters; nobody asks it to shut down
  std::unique_ptr<ObjectDirectory> local_directory_;
  orbench::WStrings wide_;
  nlohmann::ordered_json last_answer_ = nlohmann::ordered_json::object();
};

}  // namespace orbench
