package org.orbench.socket;

import java.lang.reflect.InvocationTargetException;
import java.util.List;

/**
 * The transports by the name a descriptor passes as {@code --transport}. The FFM transport is compiled for
 * Java 22+ into the same jar and loaded by name only, so this class (and every other baseline) still runs on
 * Java 17.
 */
public final class Transports {
  static final List<String> NAMES = List.of("socket", "nio", "jni", "jni-direct", "ffm");
  private static final String FFM_CLASS = "org.orbench.ffm.FfmTransport";

  private Transports() {}

  public static Transport byName(String name) {
    switch (name) {
      case "socket":
        return new StreamTransport();
      case "nio":
        return new NioTransport();
      case "jni":
        return new JniTransport(false);
      case "jni-direct":
        return new JniTransport(true);
      case "ffm":
        return ffm();
      default:
        throw new IllegalArgumentException("unknown transport \"" + name + "\" (known: " + String.join(", ", NAMES) + ")");
    }
  }

  private static Transport ffm() {
    if (Runtime.version().feature() < 22) {
      throw new IllegalArgumentException(
          "transport ffm needs Java 22 or later (the FFM API); this JVM is Java " + Runtime.version());
    }
    try {
      return (Transport) Class.forName(FFM_CLASS).getConstructor().newInstance();
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException("transport ffm is not built (" + FFM_CLASS
          + " missing: build java/ with a JDK 22+ present, see java/README.md)");
    } catch (InvocationTargetException e) {
      throw new IllegalStateException("transport ffm: " + e.getCause(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("transport ffm: " + e, e);
    }
  }
}
