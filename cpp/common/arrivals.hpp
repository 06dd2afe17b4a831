// When the calls of a fixed-rate run are due (PROTOCOL.md, "Arrivals"): evenly spaced, or a Poisson process
// (exponential gaps of mean 1 / rate) drawn from SplitMix64, the same generator as the Java workers', so a
// seed gives the same send times in both languages.
#pragma once

#include <cstdint>

namespace orbench {

enum class Arrivals { fixed, poisson };

const char* arrivals_name(Arrivals arrivals);

// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators"): one 64-bit state,
// trivially the same in C++ and Java.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1): the top 53 bits.
  double next_unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

// The intended send times t_0, t_1, ... of a paced run. t_0 is the clock read at the first use; fixed:
// t_i = t_0 + i / rate; Poisson: t_{i+1} = t_i + -ln(1 - u_i) / rate, u_i from SplitMix64(seed).
class ArrivalSchedule {
 public:
  ArrivalSchedule(double rate_hz, Arrivals arrivals, uint64_t seed);
  // The mean time between two calls; a call whose sample is above it is a deadline miss.
  double period_ns() const { return period_ns_; }
  // The next call's intended send time, without taking it.
  int64_t peek();
  // The next call's intended send time, taken.
  int64_t next();
  // A duration-bounded run's t_0 is the start of its first interval: set it before any call.
  void start_at(int64_t t0_ns);
  bool started() const { return started_; }

 private:
  double period_ns_;
  Arrivals arrivals_;
  SplitMix64 random_;
  bool started_ = false;
  int64_t t0_ = 0;
  uint64_t index_ = 0;      // fixed: the next call's number
  double offset_ns_ = 0;    // Poisson: the next call's time after t_0
};

}  // namespace orbench
