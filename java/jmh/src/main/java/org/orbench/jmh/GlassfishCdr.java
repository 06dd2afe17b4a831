package org.orbench.jmh;

import com.sun.corba.ee.impl.encoding.CDROutputObject;
import com.sun.corba.ee.impl.encoding.EncapsInputStream;
import com.sun.corba.ee.impl.encoding.OutputStreamFactory;
import org.omg.CORBA.ORB;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.OutputStream;

/**
 * GlassFish's CDR streams: {@code EncapsOutputStream} / {@code EncapsInputStream}, the standalone CDR streams
 * of the ORB (what its {@code create_output_stream()} returns), GIOP 1.2, big-endian. A request's own stream
 * ({@code CDROutputObject} with a message header) needs a connection, so it is measured by {@link LoopbackCall}
 * instead; both encode through the same {@code CDROutputStream_1_2}.
 */
final class GlassfishCdr implements CdrStreams {
  private final com.sun.corba.ee.spi.orb.ORB orb;

  GlassfishCdr(ORB orb) {
    this.orb = (com.sun.corba.ee.spi.orb.ORB) orb;
  }

  @Override
  public OutputStream output() {
    return OutputStreamFactory.newEncapsOutputStream(orb);
  }

  @Override
  public int size(OutputStream out) {
    return ((CDROutputObject) out).getBufferPosition();
  }

  @Override
  public byte[] bytes(OutputStream out) {
    return ((CDROutputObject) out).toByteArray();
  }

  @Override
  public InputStream input(byte[] encoded) {
    return new EncapsInputStream(orb, encoded, encoded.length);
  }
}
