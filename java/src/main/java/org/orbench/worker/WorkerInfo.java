package org.orbench.worker;

import com.google.gson.JsonObject;

/**
 * The {@code worker} object of the server's ready line and of the client's hello answer.
 *
 * @param orb null for a socket baseline (there is no ORB), and then omitted with orbVersion
 * @param runtime the JVM, as {@link #javaRuntime()}
 */
public record WorkerInfo(String role, String target, String orb, String orbVersion, String runtime) {

  public static final String LANGUAGE = "java";

  /** {@code java.vendor} and {@code java.version}, e.g. "Eclipse Adoptium 25.0.1". */
  public static String javaRuntime() {
    return System.getProperty("java.vendor") + " " + System.getProperty("java.version");
  }

  public static WorkerInfo server(String target, String orb, String orbVersion) {
    return new WorkerInfo("server", target, orb, orbVersion, javaRuntime());
  }

  public static WorkerInfo client(String target, String orb, String orbVersion) {
    return new WorkerInfo("client", target, orb, orbVersion, javaRuntime());
  }

  public JsonObject toJson() {
    JsonObject json = new JsonObject();
    json.addProperty("role", role);
    json.addProperty("target", target);
    json.addProperty("language", LANGUAGE);
    if (orb != null) {
      json.addProperty("orb", orb);
      json.addProperty("orb_version", orbVersion);
    }
    json.addProperty("runtime", runtime);
    return json;
  }
}
