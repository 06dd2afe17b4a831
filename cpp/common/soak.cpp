#include "soak.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "process_stats.hpp"
#include "worker_error.hpp"

namespace orbench {

namespace {

double seconds_field(const nlohmann::json& value, const char* key, double min, double max) {
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < min ||
      value.get<double>() > max) {
    throw WorkerError(ErrorKind::usage, std::string("field \"") + key + "\" must be a number of seconds from " +
                                            std::to_string(min) + " to " + std::to_string(max));
  }
  return value.get<double>();
}

// A closed-loop chunk (a batch of timed calls between two looks at the clock) lasts at most this long, so an
// interval's calls are those of the chunks that started in it, and its end blurs by at most one chunk.
constexpr int64_t kChunkNs = 10'000'000;
constexpr uint64_t kMaxChunk = 4096;

// The intervals of one soak: t_0 + k * interval .. t_0 + (k + 1) * interval, the last one cut at the end.
class IntervalRecorder {
 public:
  IntervalRecorder(int64_t t0, const SoakSpec& soak, const EventSink& emit)
      : t0_(t0), interval_ns_(soak.interval_ns), end_ns_(t0 + soak.duration_ns), emit_(emit) {}

  int64_t boundary() const { return std::min(t0_ + static_cast<int64_t>(index_ + 1) * interval_ns_, end_ns_); }

  void record(int64_t sample_ns, uint64_t misses) {
    current_.record(sample_ns);
    misses_ += misses;
  }

  // Emits every interval that ended at or before `now`, empty ones too (a stall longer than an interval).
  void close_until(int64_t now) {
    while (static_cast<int64_t>(index_) * interval_ns_ < end_ns_ - t0_ && boundary() <= now) close();
  }

  const LatencyHistogram& total() const { return total_; }
  uint64_t total_misses() const { return total_misses_; }
  uint64_t intervals() const { return index_; }

 private:
  void close() {
    nlohmann::ordered_json event = {{"event", "interval"},
                                    {"index", index_},
                                    {"start_ns", t0_ + static_cast<int64_t>(index_) * interval_ns_},
                                    {"end_ns", boundary()},
                                    {"calls", current_.count()},
                                    {"deadline_misses", misses_}};
    add_histogram_stats(event, current_);
    event["buckets"] = sparse_buckets(current_);
    event["rss_bytes"] = resident_bytes();
    event["cpu_ns"] = process_cpu_ns();
    emit_(std::move(event));
    total_.add(current_);
    total_misses_ += misses_;
    current_.clear();
    misses_ = 0;
    ++index_;
  }

  const int64_t t0_;
  const int64_t interval_ns_;
  const int64_t end_ns_;
  const EventSink& emit_;
  LatencyHistogram current_;
  LatencyHistogram total_;
  uint64_t misses_ = 0;
  uint64_t total_misses_ = 0;
  uint64_t index_ = 0;
};

}  // namespace

std::optional<SoakSpec> take_soak_spec(nlohmann::json& command) {
  const auto duration = command.find("duration_s");
  const auto interval = command.find("interval_s");
  if (duration == command.end()) {
    if (interval != command.end()) throw WorkerError(ErrorKind::usage, "field \"interval_s\" needs \"duration_s\"");
    return std::nullopt;
  }
  SoakSpec soak;
  const double seconds = seconds_field(*duration, "duration_s", kMinIntervalSeconds, kMaxSoakSeconds);
  soak.duration_ns = static_cast<int64_t>(seconds * 1e9);
  if (interval != command.end()) {
    soak.interval_ns = static_cast<int64_t>(seconds_field(*interval, "interval_s", kMinIntervalSeconds, seconds) * 1e9);
  }
  soak.interval_ns = std::min(soak.interval_ns, soak.duration_ns);
  command.erase("duration_s");
  command.erase("interval_s");
  return soak;
}

void add_histogram_stats(nlohmann::ordered_json& out, const LatencyHistogram& histogram) {
  out["calls"] = histogram.count();
  out["min_ns"] = histogram.min();
  out["p50_ns"] = histogram.value_at_percentile(50);
  out["p99_ns"] = histogram.value_at_percentile(99);
  out["p999_ns"] = histogram.value_at_percentile(99.9);
  out["max_ns"] = histogram.max();
}

nlohmann::ordered_json sparse_buckets(const LatencyHistogram& histogram) {
  nlohmann::ordered_json buckets = nlohmann::ordered_json::array();
  if (histogram.count() == 0) return buckets;
  const int first = LatencyHistogram::bucket_of(histogram.min());
  const int last = LatencyHistogram::bucket_of(histogram.max());
  for (int i = first; i <= last; ++i) {
    if (histogram.count_in(i) != 0) buckets.push_back({i, histogram.count_in(i)});
  }
  return buckets;
}

nlohmann::ordered_json run_soak(BenchDriver& driver, const RunSpec& spec, const LoadSpec& load, const SoakSpec& soak,
                                const EventSink& emit) {
  const bool oneway = spec.mode == Mode::oneway;
  if (oneway && load.shared()) {
    // The clients' call counts differ in a soak, so no client knows what the closing barrier should wait for.
    throw WorkerError(ErrorKind::usage, "a oneway soak (duration_s) takes one client: \"clients\" must be 1");
  }
  if (load.threads > 1 || load.objects > 1) {
    // Soaks run through one thread's chunked loop, on object 0: a pool of threads and objects is for runs of calls.
    throw WorkerError(ErrorKind::unsupported, "a soak run (duration_s) takes no \"threads\" or \"objects\" above 1");
  }
  driver.use_threads(1);
  driver.use_objects(1, {});  // calls to object 0 only, whatever an earlier run used
  driver.prepare(spec);
  // The chunk buffer: the only per-call storage, allocated and touched before timing.
  std::vector<int64_t> chunk(kMaxChunk);
  const Prelude prelude = before_timed_calls(driver, spec, load);

  const uint64_t seed = effective_seed(load);
  std::optional<ArrivalSchedule> schedule;
  if (load.rate_hz > 0) schedule.emplace(load.rate_hz, load.arrivals, seed);
  const int64_t t0 = monotonic_ns();
  const int64_t end = t0 + soak.duration_ns;
  if (schedule) schedule->start_at(t0);
  IntervalRecorder intervals(t0, soak, emit);
  int64_t first_send_ns = 0, last_send_ns = 0, last_end_ns = t0;
  uint64_t calls = 0;
  {
    PacingScope pacing(schedule ? &*schedule : nullptr);
    double per_call_ns = 0;  // closed loop: the last chunk's time per call, to size the next one
    for (;;) {
      if (schedule) {
        // Paced: one call per chunk; a call belongs to the interval of its intended send time.
        const int64_t due = schedule->peek();
        if (due >= end) break;
        intervals.close_until(due);
        const TimedSpan span = driver.timed_calls(chunk.data(), 1);
        intervals.record(chunk[0], span.deadline_misses);
        if (calls == 0) first_send_ns = span.first_send_ns;
        last_send_ns = span.last_send_ns;
        last_end_ns = span.end_ns;
        ++calls;
        continue;
      }
      const int64_t now = monotonic_ns();
      if (now >= end) break;
      intervals.close_until(now);
      // Closed loop: a chunk ends near the interval's end (and within kChunkNs), judged by the last chunk.
      const auto left = static_cast<double>(std::min<int64_t>(intervals.boundary() - now, kChunkNs));
      uint64_t n = per_call_ns > 0 ? static_cast<uint64_t>(left / per_call_ns) : 1;
      n = std::clamp<uint64_t>(n, 1, kMaxChunk);
      const TimedSpan span = driver.timed_calls(chunk.data(), n);
      for (uint64_t k = 0; k < n; ++k) intervals.record(chunk[k], 0);
      per_call_ns = std::max(1.0, static_cast<double>(span.end_ns - span.start_ns) / static_cast<double>(n));
      last_end_ns = span.end_ns;
      calls += n;
    }
  }
  intervals.close_until(end);

  int64_t end_ns = last_end_ns;
  nlohmann::ordered_json sync_json;
  if (oneway) {
    const int64_t sync_start = monotonic_ns();
    const SyncOutcome outcome = driver.sync(calls, spec.sync_timeout_ms);
    end_ns = monotonic_ns();
    sync_json = {{"complete", outcome.complete}, {"wait_ns", end_ns - sync_start}};
  }
  const Counts received = driver.counters();

  nlohmann::ordered_json answer = {{"calls", calls},
                                   {"elapsed_ns", end_ns - t0},
                                   {"received", counts_json(received)},
                                   {"duration_ns", soak.duration_ns},
                                   {"interval_ns", soak.interval_ns},
                                   {"intervals", intervals.intervals()}};
  add_histogram_stats(answer, intervals.total());
  if (oneway) answer["sync"] = sync_json;
  if (!prelude.warmup_sync.is_null()) answer["warmup_sync"] = prelude.warmup_sync;
  if (load.shared()) {
    answer["clients"] = load.clients;
    answer["start_barrier"] = prelude.start_barrier;
    answer["start_ns"] = t0;
    answer["end_ns"] = end_ns;
  }
  if (schedule) {
    answer["rate_hz"] = load.rate_hz;
    answer["arrivals"] = arrivals_name(load.arrivals);
    if (load.arrivals == Arrivals::poisson) answer["seed"] = seed;
    answer["deadline_misses"] = intervals.total_misses();
    const int64_t sending = last_send_ns - first_send_ns;
    if (calls > 1 && sending > 0) {
      answer["achieved_rate_hz"] = static_cast<double>(calls - 1) * 1e9 / static_cast<double>(sending);
    } else {
      answer["achieved_rate_hz"] = nullptr;
    }
  }
  return answer;
}

}  // namespace orbench
