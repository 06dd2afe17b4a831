package org.orbench.worker;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The {@code turns} field of a {@code run} command (PROTOCOL.md, "Turns: two clients taking turns inside one
 * {@code run}"): the named pipe this client waits on for its turn, per turn the pipe it gives the next turn to
 * ({@code ""}: no one follows) and the timed calls of each turn, the untimed calls every turn after the first
 * makes first, whether the first turn starts at once, and how long a turn may take to come.
 *
 * @param waitPath the {@code wait} pipe
 * @param givePaths the {@code give} pipes, one entry per turn, "" where no one follows
 * @param calls one entry per turn; they add up to the run's calls ({@link #check})
 */
public record TurnsSpec(Path waitPath, List<String> givePaths, int[] calls, int rewarm, boolean first, long timeoutMs) {
  private static final Set<String> FIELDS = Set.of("wait", "give", "calls", "rewarm", "first", "timeout_ms");
  static final long DEFAULT_TIMEOUT_MS = 20_000;
  static final long MAX_TIMEOUT_MS = 3_600_000;

  /**
   * Validates and removes {@code turns} from {@code command}, so {@link RunSpec#parse} sees only its own fields;
   * null when there is none. Throws a {@code usage} {@link WorkerException} naming the field.
   */
  public static TurnsSpec take(JsonObject command) {
    JsonElement field = command.remove("turns");
    if (field == null) {
      return null;
    }
    try {
      return parse(field);
    } catch (WorkerException e) {
      throw WorkerException.usage("field \"turns\": " + e.getMessage());
    }
  }

  /** Fails (usage) unless the turns' calls add up to the run's. */
  public void check(RunSpec spec) {
    long sum = 0;
    for (int n : calls) {
      sum += n;
    }
    if (sum != spec.calls()) {
      throw WorkerException.usage("field \"turns\": its \"calls\" add up to " + sum + ", the run's \"calls\" is "
          + spec.calls());
    }
  }

  private static TurnsSpec parse(JsonElement field) {
    if (!field.isJsonObject()) {
      throw WorkerException.usage("must be an object");
    }
    JsonObject turns = field.getAsJsonObject();
    // Not JsonFields.rejectUnknown: that one lets a command's "cmd" and "id" through, which have no place here.
    for (String key : turns.keySet()) {
      if (!FIELDS.contains(key)) {
        throw WorkerException.usage("unknown field \"" + key + "\"");
      }
    }
    String wait = JsonFields.requiredString(turns, "wait");
    if (wait.isEmpty()) {
      throw WorkerException.usage("field \"wait\" is empty");
    }
    List<String> give = new ArrayList<>();
    for (JsonElement entry : array(turns, "give")) {
      if (!entry.isJsonPrimitive() || !entry.getAsJsonPrimitive().isString()) {
        throw WorkerException.usage("field \"give\" must be an array of strings (\"\": no one follows)");
      }
      give.add(entry.getAsString());
    }
    JsonArray callsField = array(turns, "calls");
    int[] calls = new int[callsField.size()];
    for (int i = 0; i < calls.length; i++) {
      // Through JsonFields, so an entry is checked like any count (1.5, "10" and -1 are mistakes).
      String name = "calls[" + i + "]";
      JsonObject entry = new JsonObject();
      entry.add(name, callsField.get(i));
      calls[i] = (int) JsonFields.unsignedLong(entry, name, true, 0, RunSpec.MAX_ARRAY);
    }
    if (calls.length == 0) {
      throw WorkerException.usage("field \"calls\" is empty: at least one turn");
    }
    if (give.size() != calls.length) {
      throw WorkerException.usage("field \"give\" has " + give.size() + " entries and \"calls\" " + calls.length
          + ": one of each per turn");
    }
    int rewarm = (int) JsonFields.unsignedLong(turns, "rewarm", false, 0, Integer.MAX_VALUE);
    // Absent: the first turn waits for its byte too.
    JsonElement first = turns.get("first");
    if (first != null && (!first.isJsonPrimitive() || !first.getAsJsonPrimitive().isBoolean())) {
      throw WorkerException.usage("field \"first\" must be true or false");
    }
    // The example's 20 s when absent; 0 would fail every wait at once, and above an hour is a harness mistake.
    long timeoutMs = JsonFields.unsignedLong(turns, "timeout_ms", false, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS);
    if (timeoutMs == 0) {
      throw WorkerException.usage("field \"timeout_ms\" must be at least 1");
    }
    Path waitPath;
    try {
      waitPath = Path.of(wait);
    } catch (InvalidPathException e) {
      throw WorkerException.usage("field \"wait\": " + e.getMessage());
    }
    return new TurnsSpec(waitPath, List.copyOf(give), calls, rewarm, first != null && first.getAsBoolean(), timeoutMs);
  }

  private static JsonArray array(JsonObject turns, String key) {
    JsonElement value = turns.get(key);
    if (value == null) {
      throw WorkerException.usage("missing field \"" + key + "\"");
    }
    if (!value.isJsonArray()) {
      throw WorkerException.usage("field \"" + key + "\" must be an array, one entry per turn");
    }
    return value.getAsJsonArray();
  }
}
