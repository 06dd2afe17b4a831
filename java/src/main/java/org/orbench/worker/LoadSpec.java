package org.orbench.worker;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;

/**
 * The load fields of a {@code run} command (PROTOCOL.md, "Load: several clients, a fixed rate"): the rate
 * the timed calls are sent at (0: closed loop) and how many clients share the server's counters. Kept apart
 * from {@link RunSpec} so that the payload and mode fields and these evolve separately.
 */
public record LoadSpec(double rateHz, long clients, Arrivals arrivals, Long seed) {
  /** The highest rate accepted: one call per microsecond is beyond any call these workers make. */
  static final double MAX_RATE_HZ = 1e6;

  public static final LoadSpec CLOSED_LOOP = new LoadSpec(0, 1);

  /** Evenly spaced calls (or a closed loop), no seed. */
  public LoadSpec(double rateHz, long clients) {
    this(rateHz, clients, Arrivals.FIXED, null);
  }

  /**
   * The seed a Poisson run uses: the given one, else one from the clock and the process id (the clients of a
   * group start together: the pid keeps their arrivals apart).
   */
  public long effectiveSeed() {
    return seed != null ? seed : System.nanoTime() * 31 + ProcessHandle.current().pid();
  }

  /** The schedule of the timed calls, or null for a closed loop. */
  public ArrivalSchedule schedule(long seed) {
    return rateHz > 0 ? new ArrivalSchedule(rateHz, arrivals, seed) : null;
  }

  /** Above one client, no client resets the server's counters and the barriers wait for the group's sums. */
  public boolean shared() {
    return clients > 1;
  }

  /** The intended time between two calls, 0 for a closed loop. */
  public double periodNs() {
    return rateHz > 0 ? 1e9 / rateHz : 0;
  }

  /**
   * Validates and removes {@code rate_hz}, {@code clients}, {@code arrivals} and {@code seed} from {@code command}, so {@link RunSpec#parse}
   * sees only its own fields. Throws a {@code usage} {@link WorkerException} naming the field.
   */
  public static LoadSpec take(JsonObject command) {
    double rate = 0;
    JsonElement rateValue = command.remove("rate_hz");
    if (rateValue != null) {
      String bad = "field \"rate_hz\" must be a number from 0 (closed loop) to 1000000";
      if (!rateValue.isJsonPrimitive() || !((JsonPrimitive) rateValue).isNumber()) {
        throw WorkerException.usage(bad);
      }
      rate = rateValue.getAsDouble();
      if (!(rate >= 0 && rate <= MAX_RATE_HZ)) {
        throw WorkerException.usage(bad);
      }
    }
    long clients = 1;
    if (command.has("clients")) {
      clients = JsonFields.unsignedLong(command, "clients", true, 1, Integer.MAX_VALUE);
      command.remove("clients");
      if (clients < 1) {
        throw WorkerException.usage("field \"clients\" must be an integer of at least 1");
      }
    }
    Arrivals arrivals = Arrivals.FIXED;
    if (command.has("arrivals")) {
      JsonElement value = command.remove("arrivals");
      arrivals =
          value.isJsonPrimitive() && value.getAsJsonPrimitive().isString()
              ? Arrivals.fromWireName(value.getAsString())
              : null;
      if (arrivals == null) {
        throw WorkerException.usage("field \"arrivals\" must be \"fixed\" or \"poisson\"");
      }
    }
    if (arrivals == Arrivals.POISSON && rate <= 0) {
      throw WorkerException.usage("field \"arrivals\": poisson needs a \"rate_hz\" above 0");
    }
    Long seed = null;
    if (command.has("seed")) {
      // The C++ workers take any u64; Java's long holds 2^63 - 1 at most.
      seed = JsonFields.unsignedLong(command, "seed", true, 0, Long.MAX_VALUE);
      command.remove("seed");
    }
    return new LoadSpec(rate, clients, arrivals, seed);
  }
}
