package org.orbench.worker;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;

/** One-line JSON in and out. Gson's default HTML escaping (< as \u003c) is off: the output is for tools. */
public final class Json {
  private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();

  private Json() {}

  /** A single line (Gson never pretty-prints unless asked), without the newline. */
  public static String line(JsonElement element) {
    return GSON.toJson(element);
  }

  /** Parses one command line; anything but a JSON object is a usage error. */
  public static JsonObject parseObject(String line) {
    JsonElement element;
    try {
      element = JsonParser.parseString(line);
    } catch (JsonParseException e) {
      throw WorkerException.usage("not JSON: " + e.getMessage());
    }
    if (!element.isJsonObject()) {
      throw WorkerException.usage("a command must be a JSON object");
    }
    return element.getAsJsonObject();
  }

  public static JsonObject counts(Counts counts) {
    JsonObject json = new JsonObject();
    json.addProperty("messages", counts.messages());
    json.addProperty("bytes", counts.bytes());
    return json;
  }

  public static JsonArray strings(Iterable<String> values) {
    JsonArray array = new JsonArray();
    values.forEach(array::add);
    return array;
  }
}
