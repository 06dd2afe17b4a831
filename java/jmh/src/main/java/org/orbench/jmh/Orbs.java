package org.orbench.jmh;

import java.util.Properties;
import org.omg.CORBA.ORB;

/**
 * The Java ORBs the JMH suite runs, by the name its {@code orb} parameter takes: their ORB classes, the
 * properties that bind a server to loopback, and a check that the class path holds this ORB and no other.
 *
 * <p>Both ORBs ship their own org.omg classes, so they never share a class path: {@code make jmh} runs JMH once
 * per ORB with that ORB's jars ({@code java/target/lib/<orb>/}) and {@code -p orb=<orb>}, and every forked JVM
 * inherits that class path. This is the one table of ORB-specific names in the suite (CDR streams aside:
 * {@link CdrStreams}).
 */
final class Orbs {
  static final String JACORB = "jacorb";
  static final String GLASSFISH = "glassfish";

  private static final String JACORB_ORB = "org.jacorb.orb.ORB";
  private static final String GLASSFISH_ORB = "com.sun.corba.ee.impl.orb.ORBImpl";

  private Orbs() {}

  /** An ORB instance of the named ORB; a server ORB listens on 127.0.0.1, any free port. */
  static ORB init(String orb, boolean server) {
    requireAlone(orb);
    Properties p = new Properties();
    switch (orb) {
      case JACORB -> {
        p.setProperty("org.omg.CORBA.ORBClass", JACORB_ORB);
        p.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        if (server) {
          p.setProperty("OAIAddr", "127.0.0.1");
          p.setProperty("OAPort", "0");
        }
      }
      case GLASSFISH -> {
        p.setProperty("org.omg.CORBA.ORBClass", GLASSFISH_ORB);
        p.setProperty("org.omg.CORBA.ORBSingletonClass", "com.sun.corba.ee.impl.orb.ORBSingleton");
        if (server) {
          p.setProperty("com.sun.corba.ee.ORBServerHost", "127.0.0.1");
          p.setProperty("com.sun.corba.ee.ORBServerPort", "0");
        }
      }
      default -> throw unknown(orb);
    }
    return ORB.init(new String[0], p);
  }

  /** The named ORB's own CDR streams, for {@code orb} (an instance of that ORB). */
  static CdrStreams cdr(String name, ORB orb) {
    return switch (name) {
      case JACORB -> new JacorbCdr(orb);
      case GLASSFISH -> new GlassfishCdr(orb);
      default -> throw unknown(name);
    };
  }

  /**
   * Fails unless the named ORB's classes are on the class path and the other ORB's are not: a run on the wrong
   * class path would measure another ORB, or a mix of two ORBs' org.omg classes, under this ORB's name.
   */
  static void requireAlone(String orb) {
    String want = switch (orb) {
      case JACORB -> JACORB_ORB;
      case GLASSFISH -> GLASSFISH_ORB;
      default -> throw unknown(orb);
    };
    String other = want.equals(JACORB_ORB) ? GLASSFISH_ORB : JACORB_ORB;
    if (!present(want)) {
      throw new IllegalStateException("orb=" + orb + ": " + want + " is not on the class path; run JMH with "
          + "java/target/lib/" + orb + "/* on it and -p orb=" + orb + " (make jmh does)");
    }
    if (present(other)) {
      throw new IllegalStateException("orb=" + orb + ": another ORB (" + other + ") is on the class path too; "
          + "each ORB ships its own org.omg classes, so each run gets one ORB's jars only (make jmh does)");
    }
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, Orbs.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  private static IllegalArgumentException unknown(String orb) {
    return new IllegalArgumentException("unknown orb '" + orb + "': expected " + JACORB + " or " + GLASSFISH);
  }
}
