package org.orbench.worker;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * The soak fields of a {@code run} command (PROTOCOL.md, "Soak runs"): timed calls for {@code duration_s}
 * seconds instead of a count, one histogram per {@code interval_s} seconds (default 1, at most the duration).
 */
public record SoakSpec(long durationNs, long intervalNs) {
  /** The longest soak accepted (30 days) and the shortest interval (1 ms), as in the C++ workers. */
  static final double MAX_SECONDS = 30.0 * 24 * 3600;

  static final double MIN_INTERVAL_SECONDS = 0.001;

  /**
   * Validates and removes {@code duration_s} and {@code interval_s} from {@code command}; null when there
   * is no {@code duration_s} (a run of {@code calls}). Throws a {@code usage} {@link WorkerException}.
   */
  public static SoakSpec take(JsonObject command) {
    JsonElement duration = command.get("duration_s");
    JsonElement interval = command.get("interval_s");
    if (duration == null) {
      if (interval != null) {
        throw WorkerException.usage("field \"interval_s\" needs \"duration_s\"");
      }
      return null;
    }
    double seconds = seconds(duration, "duration_s", MIN_INTERVAL_SECONDS, MAX_SECONDS);
    long durationNs = (long) (seconds * 1e9);
    long intervalNs = 1_000_000_000L;
    if (interval != null) {
      intervalNs = (long) (seconds(interval, "interval_s", MIN_INTERVAL_SECONDS, seconds) * 1e9);
    }
    command.remove("duration_s");
    command.remove("interval_s");
    return new SoakSpec(durationNs, Math.min(intervalNs, durationNs));
  }

  private static double seconds(JsonElement value, String key, double min, double max) {
    if (value.isJsonPrimitive() && value.getAsJsonPrimitive().isNumber()) {
      double seconds = value.getAsDouble();
      if (seconds >= min && seconds <= max) {
        return seconds;
      }
    }
    throw WorkerException.usage(
        "field \"" + key + "\" must be a number of seconds from " + min + " to " + max);
  }
}
