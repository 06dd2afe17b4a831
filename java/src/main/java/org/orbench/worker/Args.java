package org.orbench.worker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Worker command lines: {@code --name value} pairs only, every name known, the required ones present. A name
 * may repeat ({@code --option a=1 --option b=2}): {@link #get} is its last value, {@link #all} every one.
 */
public final class Args {
  private final Map<String, String> values;
  private final Map<String, List<String>> repeated;

  private Args(Map<String, String> values, Map<String, List<String>> repeated) {
    this.values = values;
    this.repeated = repeated;
  }

  /** Throws IllegalArgumentException with a message for the user on any mistake. */
  public static Args parse(String[] argv, Set<String> known, Set<String> required) {
    Map<String, String> values = new HashMap<>();
    Map<String, List<String>> repeated = new HashMap<>();
    for (int i = 0; i < argv.length; i += 2) {
      String flag = argv[i];
      if (!flag.startsWith("--") || !known.contains(flag.substring(2))) {
        throw new IllegalArgumentException("unknown argument " + flag + " (known: --" + String.join(", --", known) + ")");
      }
      if (i + 1 >= argv.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      values.put(flag.substring(2), argv[i + 1]);
      repeated.computeIfAbsent(flag.substring(2), k -> new ArrayList<>()).add(argv[i + 1]);
    }
    for (String name : required) {
      if (!values.containsKey(name)) {
        throw new IllegalArgumentException("missing --" + name);
      }
    }
    return new Args(values, repeated);
  }

  public String get(String name) {
    return values.get(name);
  }

  /** Every value given for {@code name}, in order; empty when absent. */
  public List<String> all(String name) {
    return repeated.getOrDefault(name, List.of());
  }

  /** An integer from {@code min} to {@code max}; {@code fallback} when absent. */
  public int integer(String name, int min, int max, int fallback) {
    String text = values.get(name);
    if (text == null) {
      return fallback;
    }
    try {
      int value = Integer.parseInt(text);
      if (value < min || value > max) {
        throw new NumberFormatException();
      }
      return value;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be an integer from " + min + " to " + max + ", got "
          + text);
    }
  }

  /** A server's {@code --objects K} (PROTOCOL.md): how many objects it activates, 1 when absent. */
  public int objects() {
    return integer("objects", 1, LoadSpec.MAX_OBJECTS, 1);
  }

  /** A TCP port, 0 meaning "any free port". */
  public int port(String name) {
    String text = values.get(name);
    try {
      int port = Integer.parseInt(text);
      if (port < 0 || port > 65535) {
        throw new NumberFormatException();
      }
      return port;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be a port number 0-65535, got " + text);
    }
  }
}
