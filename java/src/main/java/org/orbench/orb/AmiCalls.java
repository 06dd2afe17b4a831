package org.orbench.orb;

import orbench.Bench;
import org.omg.CORBA.ORB;
import org.orbench.worker.BatchInvocation;
import org.orbench.worker.RunSpec;

/**
 * The ami-N shape (PROTOCOL.md, "Invocation shapes") through an ORB's own AMI stubs. Only JacORB has them here:
 * {@code JacorbAmi} (src/jacorb/java) is compiled against jacorb.jar and its own IDL compiler's stubs, so this
 * interface is how the ORB-agnostic client reaches it, loaded by name when the ORB is JacORB and never otherwise.
 */
interface AmiCalls {
  /** The class made when the ORB is JacORB. */
  String JACORB_CLASS = "org.orbench.orb.JacorbAmi";

  /** An ami-N run's calls on {@code remote}, N = {@code outstanding}: each reply checked by its handler. */
  BatchInvocation invocation(Bench remote, RunSpec spec, int outstanding) throws Exception;

  /** The last batch of calls: handler calls that completed a call, N, and the most calls in flight at once. */
  Tally tally();

  record Tally(long replies, int outstanding, int outstandingMax) {}

  /** JacORB's AMI when {@code orb} is JacORB; null for any other ORB (it has no AMI here). */
  static AmiCalls of(ORB orb) {
    if (!orb.getClass().getName().startsWith("org.jacorb.")) {
      return null;
    }
    try {
      return Class.forName(JACORB_CLASS).asSubclass(AmiCalls.class).getDeclaredConstructor(ORB.class)
          .newInstance(orb);
    } catch (ReflectiveOperationException | LinkageError e) {
      // A build without the JacORB stubs: the client does not claim ami, and says why.
      System.err.println("orbench: JacORB AMI unavailable (" + JACORB_CLASS + "): " + e);
      return null;
    }
  }
}
