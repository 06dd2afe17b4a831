package org.orbench.worker;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.math.BigDecimal;
import java.util.Set;

/** Strict reads of a command's fields: every mistake is a {@code usage} error naming the field. */
public final class JsonFields {
  private JsonFields() {}

  /** Fails on any key besides {@code cmd}, {@code id} and {@code allowed}. */
  public static void rejectUnknown(JsonObject command, Set<String> allowed) {
    for (String key : command.keySet()) {
      if (!key.equals("cmd") && !key.equals("id") && !allowed.contains(key)) {
        throw WorkerException.usage("unknown field \"" + key + "\"");
      }
    }
  }

  public static String requiredString(JsonObject command, String key) {
    JsonElement value = command.get(key);
    if (value == null) {
      throw WorkerException.usage("missing field \"" + key + "\"");
    }
    if (!value.isJsonPrimitive() || !value.getAsJsonPrimitive().isString()) {
      throw WorkerException.usage("field \"" + key + "\" must be a string");
    }
    return value.getAsString();
  }

  /**
   * A JSON integer in [0, max]; {@code fallback} when absent and not required. 1024.5, "1024" and -1
   * are usage errors, so a harness bug never turns into a silently different run.
   */
  public static long unsignedLong(JsonObject command, String key, boolean required, long fallback, long max) {
    JsonElement value = command.get(key);
    if (value == null) {
      if (required) {
        throw WorkerException.usage("missing field \"" + key + "\"");
      }
      return fallback;
    }
    String notInteger = "field \"" + key + "\" must be a non-negative integer";
    if (!value.isJsonPrimitive() || !((JsonPrimitive) value).isNumber()) {
      throw WorkerException.usage(notInteger);
    }
    long parsed;
    try {
      parsed = new BigDecimal(value.getAsString()).longValueExact();
    } catch (ArithmeticException | NumberFormatException e) {
      throw WorkerException.usage(notInteger);
    }
    if (parsed < 0) {
      throw WorkerException.usage(notInteger);
    }
    if (parsed > max) {
      throw WorkerException.usage("field \"" + key + "\" is too large (at most " + max + ")");
    }
    return parsed;
  }

  /** An optional object field; an empty object when absent or null. */
  public static JsonObject optionalObject(JsonObject command, String key) {
    JsonElement value = command.get(key);
    if (value == null || value.isJsonNull()) {
      return new JsonObject();
    }
    if (!value.isJsonObject()) {
      throw WorkerException.usage("field \"" + key + "\" must be an object");
    }
    return value.getAsJsonObject();
  }
}
