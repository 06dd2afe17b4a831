package org.orbench.orb;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.jar.Attributes;
import java.util.jar.Manifest;
import org.omg.CORBA.ORB;

/**
 * The name and version of the ORB in use, for the worker's {@code orb} and {@code orb_version}. The version
 * is read, not written down: from the Implementation-Version of the jar that holds the ORB class (JacORB's
 * says "3.9"), else its OSGi Bundle-Version (GlassFish's says "5.0.0"), so a different jar on the class path is reported as what it is.
 */
record OrbIdentity(String name, String version) {
  static final String UNKNOWN_VERSION = "unknown";
  private static final String BUNDLE_VERSION = "Bundle-Version";

  static OrbIdentity of(ORB orb) {
    Class<?> orbClass = orb.getClass();
    return new OrbIdentity(nameOf(orbClass), versionOf(orbClass));
  }

  private static String nameOf(Class<?> orbClass) {
    String className = orbClass.getName();
    if (className.startsWith("org.jacorb.")) {
      return "JacORB";
    }
    if (className.startsWith("com.sun.corba.ee.")) {
      return "GlassFish CORBA";
    }
    String title = orbClass.getPackage().getImplementationTitle();
    return title != null ? title : className;
  }

  private static String versionOf(Class<?> orbClass) {
    String version = orbClass.getPackage().getImplementationVersion();
    if (version != null) {
      return version;
    }
    // A class loader that does not define packages from the manifest: read the jar's manifest itself.
    URL classFile = orbClass.getResource(orbClass.getSimpleName() + ".class");
    if (classFile != null && classFile.getProtocol().equals("jar")) {
      String jar = classFile.toString();
      String manifestUrl = jar.substring(0, jar.indexOf("!/") + 2) + "META-INF/MANIFEST.MF";
      try (InputStream in = new URL(manifestUrl).openStream()) {
        Attributes main = new Manifest(in).getMainAttributes();
        String fromManifest = main.getValue(Attributes.Name.IMPLEMENTATION_VERSION);
        if (fromManifest != null) {
          return fromManifest;
        }
        // OSGi bundles (the GlassFish ORB) carry their version as Bundle-Version only.
        String bundleVersion = main.getValue(BUNDLE_VERSION);
        if (bundleVersion != null) {
          return bundleVersion;
        }
      } catch (IOException e) {
        System.err.println("orbench: cannot read " + manifestUrl + ": " + e);
      }
    }
    return UNKNOWN_VERSION;
  }
}
