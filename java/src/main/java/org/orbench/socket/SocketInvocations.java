package org.orbench.socket;

import java.util.Arrays;
import org.orbench.worker.ErrorKind;
import org.orbench.worker.Invocation;
import org.orbench.worker.Payloads;
import org.orbench.worker.RunSpec;
import org.orbench.worker.WorkerException;

/**
 * One {@link Invocation} per mode: the whole request (header and payload) is one preallocated frame, sent
 * in one write, as an ORB sends a GIOP request.
 */
final class SocketInvocations {
  private SocketInvocations() {}

  static Invocation of(WireClient wire, RunSpec spec) {
    // Every payload type is plain bytes on this wire: the bytes an ORB's server counts for it (PROTOCOL.md).
    int payloadBytes = spec.payloadType().countedBytes(spec.payloadBytes());
    byte[] payload = Payloads.octets(payloadBytes);
    int frameLength = Wire.HEADER_BYTES + payloadBytes;
    // Prepared in the link's own memory (a direct buffer for NIO, ...) before timing.
    switch (spec.mode()) {
      case ONEWAY: {
        Link.Frame frame = wire.prepare(frame(Kind.ONEWAY, payload), frameLength);
        return new Invocation() {
          @Override
          public void call() throws Exception {
            frame.send();
          }
        };
      }
      case TWOWAY: {
        Link.Frame frame = wire.prepare(frame(Kind.TWOWAY, payload), frameLength);
        return new Invocation() {
          @Override
          public void call() throws Exception {
            frame.send();
            wire.receiveReply(Kind.TWOWAY, 0);
          }
        };
      }
      case ECHO: {
        Link.Frame frame = wire.prepare(frame(Kind.ECHO, payload), frameLength);
        return new Invocation() {
          @Override
          public void call() throws Exception {
            frame.send();
            wire.receiveReply(Kind.ECHO, payloadBytes);
          }

          @Override
          public void check() {
            byte[] reply = wire.replyBody();
            if (!Arrays.equals(
                reply, Wire.PREAMBLE_BYTES, Wire.PREAMBLE_BYTES + payloadBytes, payload, 0, payloadBytes)) {
              throw new WorkerException(ErrorKind.REMOTE, "ECHO reply differs from the payload");
            }
          }
        };
      }
      default:
        throw new IllegalStateException("mode " + spec.mode());
    }
  }

  private static byte[] frame(Kind kind, byte[] payload) {
    byte[] frame = new byte[Wire.HEADER_BYTES + payload.length];
    Wire.putHeader(frame, 0, kind.code, payload.length);
    System.arraycopy(payload, 0, frame, Wire.HEADER_BYTES, payload.length);
    return frame;
  }
}
