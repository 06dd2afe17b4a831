package org.orbench.worker;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.List;
import java.util.Set;

/**
 * The invocation shape of a run (PROTOCOL.md, "Invocation shapes"): {@code kind} is a shape name without its
 * count ("in", "out", ..., "ami"), {@code outstanding} the replies an "ami-N" keeps outstanding (1 otherwise).
 */
public record Shape(String kind, int outstanding) {
  public static final Shape IN = new Shape("in", 1);
  private static final List<String> KINDS =
      List.of("in", "out", "inout", "return", "exception", "wstring", "dii", "dsi", "collocated", "pipelined",
          "chained");
  private static final Set<String> TWOWAY_ONLY =
      Set.of("out", "return", "inout", "exception", "pipelined", "chained");

  public boolean isIn() {
    return kind.equals("in");
  }

  public String name() {
    return kind.equals("ami") ? "ami-" + outstanding : kind;
  }

  /**
   * Takes the optional "shape" field out of a run command: {@code usage} for a name that is no shape,
   * {@code unsupported} for a kind outside {@code supportedKinds} or one that does not take the run's mode or
   * payload type.
   */
  public static Shape take(JsonObject command, Set<String> supportedKinds) {
    JsonElement field = command.remove("shape");
    if (field == null) {
      return IN;
    }
    if (!field.isJsonPrimitive() || !field.getAsJsonPrimitive().isString()) {
      throw WorkerException.usage("field \"shape\" must be a string");
    }
    String name = field.getAsString();
    Shape shape;
    if (name.startsWith("ami-")) {
      String digits = name.substring(4);
      if (!digits.matches("[1-9][0-9]{0,2}") || Integer.parseInt(digits) > 256) {
        throw WorkerException.usage("shape \"" + name + "\": ami-N takes N from 1 to 256");
      }
      shape = new Shape("ami", Integer.parseInt(digits));
    } else if (KINDS.contains(name)) {
      shape = new Shape(name, 1);
    } else {
      throw WorkerException.usage("unknown shape \"" + name + "\"");
    }
    if (!supportedKinds.contains(shape.kind())) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, "shape \"" + name + "\" not supported");
    }
    String mode = command.has("mode") && command.get("mode").isJsonPrimitive() ? command.get("mode").getAsString() : "";
    String type = command.has("payload_type") && command.get("payload_type").isJsonPrimitive()
        ? command.get("payload_type").getAsString() : "";
    boolean twowayOnly = TWOWAY_ONLY.contains(shape.kind());
    if (!shape.isIn() && !mode.equals("twoway") && (twowayOnly || !mode.equals("echo"))) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, "shape \"" + name + "\" takes mode "
          + (twowayOnly ? "twoway" : "twoway or echo") + ", not \"" + mode + "\"");
    }
    if (shape.kind().equals("wstring") && !type.equals("strings")) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, "shape \"wstring\" takes payload_type strings only");
    }
    return shape;
  }
}
