package org.orbench.worker;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;

/**
 * The load fields of a {@code run} command (PROTOCOL.md, "Load: several clients, a fixed rate"): the rate
 * the timed calls are sent at (0: closed loop) and how many clients share the server's counters. Kept apart
 * from {@link RunSpec} so that the payload and mode fields and these evolve separately.
 */
public record LoadSpec(double rateHz, long clients) {
  /** The highest rate accepted: one call per microsecond is beyond any call these workers make. */
  static final double MAX_RATE_HZ = 1e6;

  public static final LoadSpec CLOSED_LOOP = new LoadSpec(0, 1);

  /** Above one client, no client resets the server's counters and the barriers wait for the group's sums. */
  public boolean shared() {
    return clients > 1;
  }

  /** The intended time between two calls, 0 for a closed loop. */
  public double periodNs() {
    return rateHz > 0 ? 1e9 / rateHz : 0;
  }

  /**
   * Validates and removes {@code rate_hz} and {@code clients} from {@code command}, so {@link RunSpec#parse}
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
    return new LoadSpec(rate, clients);
  }
}
