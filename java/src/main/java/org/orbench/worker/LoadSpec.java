package org.orbench.worker;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;

/**
 * The load fields of a {@code run} command (PROTOCOL.md, "Load: several clients, a fixed rate", "Load at
 * scale"): the rate the timed calls are sent at (0: closed loop), how many clients share the server's
 * counters, how many threads of this process make the calls and to how many objects they go. Kept apart from
 * {@link RunSpec} so that the payload and mode fields and these evolve separately.
 */
public record LoadSpec(
    double rateHz, long clients, Arrivals arrivals, Long seed, int threads, int objects, ObjectOrder objectOrder) {
  /** The highest rate accepted: one call per microsecond is beyond any call these workers make. */
  static final double MAX_RATE_HZ = 1e6;

  /** The most threads and objects a run may ask for (PROTOCOL.md). */
  public static final int MAX_THREADS = 256;

  public static final int MAX_OBJECTS = 100_000;

  public static final LoadSpec CLOSED_LOOP = new LoadSpec(0, 1);

  /** Evenly spaced calls (or a closed loop), no seed. */
  public LoadSpec(double rateHz, long clients) {
    this(rateHz, clients, Arrivals.FIXED, null);
  }

  /** One thread, one object. */
  public LoadSpec(double rateHz, long clients, Arrivals arrivals, Long seed) {
    this(rateHz, clients, arrivals, seed, 1, 1, ObjectOrder.ROUND_ROBIN);
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

  /** The object of each numbered call (warm-up call i goes where timed call i goes), or null for one object. */
  public int[] objectsOfCalls(RunSpec spec, long seed) {
    if (objects <= 1) {
      return null;
    }
    return objectOrder.draw(objects, numberedCalls(threads, Math.max(spec.warmup(), spec.calls())), seed);
  }

  /** threads x calls, which must fit a Java array (the samples). */
  static int numberedCalls(int threads, int calls) {
    long total = (long) threads * calls;
    if (total > RunSpec.MAX_ARRAY) {
      throw WorkerException.usage("threads x calls (and x warmup) must be at most " + RunSpec.MAX_ARRAY);
    }
    return (int) total;
  }

  /**
   * Validates and removes {@code rate_hz}, {@code clients}, {@code arrivals}, {@code seed}, {@code threads},
   * {@code objects} and {@code object_order} from {@code command}, so {@link RunSpec#parse} sees only its own
   * fields. Throws a {@code usage} {@link WorkerException} naming the field.
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
    int threads = takeCount(command, "threads", MAX_THREADS);
    int objects = takeCount(command, "objects", MAX_OBJECTS);
    ObjectOrder order = ObjectOrder.ROUND_ROBIN;
    if (command.has("object_order")) {
      JsonElement value = command.remove("object_order");
      order = value.isJsonPrimitive() && value.getAsJsonPrimitive().isString()
          ? ObjectOrder.fromWireName(value.getAsString())
          : null;
      if (order == null) {
        throw WorkerException.usage("field \"object_order\" must be \"round-robin\" or \"random\"");
      }
    }
    return new LoadSpec(rate, clients, arrivals, seed, threads, objects, order);
  }

  /** An integer field of 1 .. max taken out of {@code command}; 1 when absent. */
  private static int takeCount(JsonObject command, String key, int max) {
    if (!command.has(key)) {
      return 1;
    }
    String bad = "field \"" + key + "\" must be an integer from 1 to " + max;
    long value;
    try {
      value = JsonFields.unsignedLong(command, key, true, 1, max);
    } catch (WorkerException e) {
      throw WorkerException.usage(bad);
    }
    if (value < 1) {
      throw WorkerException.usage(bad);
    }
    command.remove(key);
    return (int) value;
  }
}
