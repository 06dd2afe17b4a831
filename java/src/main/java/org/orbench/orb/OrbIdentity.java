package org.orbench.orb;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.jar.Manifest;
import org.omg.CORBA.ORB;

/**
 * The name and version of the ORB in use, for the worker's {@code orb} and {@code orb_version}. The name is the
 * descriptor's ({@code [orb] name}); the version is read, not written down: the attribute the descriptor names
 * ({@code [orb] version_attribute}) of the manifest of the jar that holds the ORB class (JacORB's
 * Implementation-Version says "3.9", GlassFish's OSGi Bundle-Version "5.0.0"), so a different jar on the class
 * path is reported as what it is.
 */
record OrbIdentity(String name, String version) {
  static final String UNKNOWN_VERSION = "unknown";

  static OrbIdentity of(ORB orb, OrbSettings settings) {
    return new OrbIdentity(settings.name(), versionOf(orb.getClass(), settings.versionAttribute()));
  }

  private static String versionOf(Class<?> orbClass, String attribute) {
    URL classFile = orbClass.getResource(orbClass.getSimpleName() + ".class");
    if (classFile == null || !classFile.getProtocol().equals("jar")) {
      return UNKNOWN_VERSION;
    }
    String jar = classFile.toString();
    String manifestUrl = jar.substring(0, jar.indexOf("!/") + 2) + "META-INF/MANIFEST.MF";
    try (InputStream in = new URL(manifestUrl).openStream()) {
      String version = new Manifest(in).getMainAttributes().getValue(attribute);
      if (version == null) {
        System.err.println("orbench: " + manifestUrl + " has no " + attribute + " (the descriptor's [orb] "
            + "version_attribute)");
        return UNKNOWN_VERSION;
      }
      return version;
    } catch (IOException e) {
      System.err.println("orbench: cannot read " + manifestUrl + ": " + e);
      return UNKNOWN_VERSION;
    }
  }
}
