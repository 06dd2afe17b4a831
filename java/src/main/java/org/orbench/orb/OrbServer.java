package org.orbench.orb;

import org.orbench.worker.ProtocolOut;
import org.orbench.worker.ServerEvents;

/**
 * The ORB server worker: {@code OrbServer --target NAME --host HOST --port PORT [--objects K]}. Serves one
 * Bench object (K) on the root POA, prints the ready line with its IOR, and runs until the shutdown() request, EOF on stdin,
 * SIGTERM or SIGINT. The ORB is whatever -Dorg.omg.CORBA.ORBClass names.
 */
public final class OrbServer {
  private OrbServer() {}

  public static void main(String[] argv) {
    ProtocolOut out = ProtocolOut.takeStdout();
    ServerEvents events = new ServerEvents(out);
    try {
      OrbServing.serve(argv, events);
    } catch (Exception | LinkageError e) {
      // A LinkageError means no ORB on the class path (org.omg classes come with the ORB's jars). OrbServing holds
      // every org.omg reference, so that this class still loads and can say so on the protocol stream.
      e.printStackTrace();
      events.error(e instanceof LinkageError ? "no ORB on the class path? " + e
          : e.getMessage() == null ? e.toString() : e.getMessage());
      System.exit(1);
    }
    // ORB threads are not daemons; the ORB has stopped, so leave now.
    System.exit(0);
  }
}
