package org.orbench.orb;

import java.util.Properties;

/**
 * The ORB properties that make a server listen on, and advertise in its IORs, exactly {@code host:port}
 * (orb-notes pitfall 9: by default ORBs advertise a non-loopback address and a random port). Properties
 * have no standard name, so this is the one table of ORB-specific names in the worker.
 */
final class OrbEndpoint {
  private OrbEndpoint() {}

  /** {@code orbClass} is the value of org.omg.CORBA.ORBClass; port 0 means any free port. */
  static Properties serverProperties(String orbClass, String host, int port) {
    Properties properties = new Properties();
    if (orbClass.startsWith("org.jacorb.")) {
      properties.setProperty("OAIAddr", host);
      properties.setProperty("OAPort", Integer.toString(port));
    } else if (orbClass.startsWith("com.sun.corba.ee.")) {
      // GlassFish ORB (glassfish target).
      properties.setProperty("com.sun.corba.ee.ORBServerHost", host);
      properties.setProperty("com.sun.corba.ee.ORBServerPort", Integer.toString(port));
    } else {
      throw new IllegalArgumentException(
          "no endpoint properties known for ORB class " + orbClass + "; add them to OrbEndpoint");
    }
    return properties;
  }
}
