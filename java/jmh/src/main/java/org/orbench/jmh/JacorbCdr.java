package org.orbench.jmh;

import org.jacorb.orb.CDRInputStream;
import org.jacorb.orb.CDROutputStream;
import org.omg.CORBA.ORB;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.OutputStream;

/** JacORB's CDR streams, {@code org.jacorb.orb.CDROutputStream} / {@code CDRInputStream} (GIOP 1.2 default). */
final class JacorbCdr implements CdrStreams {
  private final ORB orb;

  JacorbCdr(ORB orb) {
    this.orb = orb;
  }

  @Override
  public OutputStream output() {
    return new CDROutputStream(orb);
  }

  @Override
  public int size(OutputStream out) {
    return ((CDROutputStream) out).size();
  }

  @Override
  public byte[] bytes(OutputStream out) {
    return ((CDROutputStream) out).getBufferCopy();
  }

  @Override
  public InputStream input(byte[] encoded) {
    return new CDRInputStream(orb, encoded);
  }
}
