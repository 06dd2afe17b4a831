package org.orbench.orb;

import java.util.ArrayList;
import java.util.List;
import org.omg.CORBA.ORB;

/** A server's objects in activation order: object k's reference, stringified when a client asks. */
final class ObjectDirectory {
  private final ORB orb;
  private final List<org.omg.CORBA.Object> references = new ArrayList<>();

  ObjectDirectory(ORB orb) {
    this.orb = orb;
  }

  /** Filled in before the server is ready, read by the servants afterwards. */
  synchronized void add(org.omg.CORBA.Object reference) {
    references.add(reference);
  }

  private org.omg.CORBA.Object dsi;

  /** The object served through the dynamic skeleton interface (DsiBench). */
  synchronized void setDsi(org.omg.CORBA.Object reference) {
    dsi = reference;
  }

  /** Its stringified reference, "" when there is none. */
  String dsiString() {
    org.omg.CORBA.Object reference;
    synchronized (this) {
      reference = dsi;
    }
    return reference == null ? "" : orb.object_to_string(reference);
  }

  synchronized org.omg.CORBA.Object reference(int k) {
    return references.get(k);
  }

  /** Objects first .. first + count - 1, fewer past the last one. */
  String[] strings(long first, long count) {
    org.omg.CORBA.Object[] chosen;
    synchronized (this) {
      long end = Math.min(references.size(), first + count);
      chosen = first >= end ? new org.omg.CORBA.Object[0]
          : references.subList((int) first, (int) end).toArray(org.omg.CORBA.Object[]::new);
    }
    String[] out = new String[chosen.length];
    for (int i = 0; i < chosen.length; i++) {
      out[i] = orb.object_to_string(chosen[i]);
    }
    return out;
  }
}
