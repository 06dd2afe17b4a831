#include "arrivals.hpp"

#include <cmath>

#include "clock.hpp"

namespace orbench {

const char* arrivals_name(Arrivals arrivals) { return arrivals == Arrivals::poisson ? "poisson" : "fixed"; }

ArrivalSchedule::ArrivalSchedule(double rate_hz, Arrivals arrivals, uint64_t seed)
    : period_ns_(1e9 / rate_hz), arrivals_(arrivals), random_(seed) {}

void ArrivalSchedule::start_at(int64_t t0_ns) {
  started_ = true;
  t0_ = t0_ns;
}

int64_t ArrivalSchedule::peek() {
  if (!started_) start_at(monotonic_ns());
  if (arrivals_ == Arrivals::fixed) return t0_ + static_cast<int64_t>(static_cast<double>(index_) * period_ns_);
  return t0_ + static_cast<int64_t>(offset_ns_);
}

int64_t ArrivalSchedule::next() {
  const int64_t due = peek();
  if (arrivals_ == Arrivals::fixed) {
    ++index_;
  } else {
    offset_ns_ += -std::log1p(-random_.next_unit()) * period_ns_;
  }
  return due;
}

}  // namespace orbench
