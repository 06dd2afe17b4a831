package org.orbench.socket;

import java.io.Closeable;
import java.io.IOException;
import org.orbench.worker.Counts;
import org.orbench.worker.ErrorKind;
import org.orbench.worker.SyncOutcome;
import org.orbench.worker.WorkerException;

/**
 * The client end of one connection, over any {@link Link}: sends prepared frames in one write each and reads
 * replies into a reusable buffer, checking kind, length and status. A hung server is the harness's timeout
 * to catch; a dead one ends a read with EOF or a reset.
 */
final class WireClient implements Closeable {
  private static final int INPUT_BUFFER_BYTES = 64 * 1024;

  private final Link link;
  private final boolean splitWrites;
  private final byte[] replyHeader = new byte[Wire.HEADER_BYTES];
  private byte[] replyBody = new byte[INPUT_BUFFER_BYTES];
  /** Frames of the control requests (reset, sync, counters), built per call: they are not timed. */
  private final byte[] controlFrame = new byte[Wire.HEADER_BYTES + Wire.SYNC_BODY_BYTES];

  /** {@code splitWrites}: timed requests go out as header then body, two writes (TCP_NODELAY off). */
  WireClient(Link link, boolean splitWrites) {
    this.link = link;
    this.splitWrites = splitWrites;
  }

  /**
   * A request frame (header and body) prepared for {@link Link.Frame#send()}: one write per call, or, with
   * split writes and a body, the header and then the body as two writes (as GIOP may send them).
   */
  Link.Frame prepare(byte[] frame, int length) {
    if (!splitWrites || length <= Wire.HEADER_BYTES) {
      return link.prepare(frame, length);
    }
    Link.Frame header = link.prepare(frame, Wire.HEADER_BYTES);
    Link.Frame body =
        link.prepare(java.util.Arrays.copyOfRange(frame, Wire.HEADER_BYTES, length), length - Wire.HEADER_BYTES);
    return () -> {
      header.send();
      body.send();
    };
  }

  /**
   * Reads the reply to a {@code kind} request into {@link #replyBody()}; its body must be the preamble plus
   * {@code afterPreamble} bytes and its status ok.
   */
  void receiveReply(Kind kind, int afterPreamble) throws IOException {
    link.readFully(replyHeader, 0, Wire.HEADER_BYTES);
    Wire.Header header = Wire.parseHeader(replyHeader, 0);
    if (header.kind() != kind.replyCode()) {
      throw new WireFormatException(
          String.format("reply kind 0x%02x to a %s request, expected 0x%02x", header.kind(), kind, kind.replyCode()));
    }
    int expected = Wire.PREAMBLE_BYTES + afterPreamble;
    if (header.bodyLength() != expected) {
      throw new WireFormatException(
          kind + " reply body of " + header.bodyLength() + " bytes, expected " + expected);
    }
    replyBody = Streams.ensureCapacity(replyBody, expected);
    link.readFully(replyBody, 0, expected);
    long status = Wire.getU32(replyBody, 4);
    if (status != Wire.STATUS_OK) {
      throw new WorkerException(ErrorKind.REMOTE, kind + " failed at the server: status " + status);
    }
  }

  /** The body of the last reply: the preamble, then what follows it. */
  byte[] replyBody() {
    return replyBody;
  }

  void shutdown() throws IOException {
    control(Kind.SHUTDOWN, 0);
    receiveReply(Kind.SHUTDOWN, 0);
  }

  void reset() throws IOException {
    control(Kind.RESET, 0);
    receiveReply(Kind.RESET, 0);
  }

  Counts counters() throws IOException {
    control(Kind.COUNTERS, 0);
    receiveReply(Kind.COUNTERS, 16);
    return counts(Wire.PREAMBLE_BYTES);
  }

  SyncOutcome sync(long expected, long timeoutMs) throws IOException {
    Wire.putU64(controlFrame, Wire.HEADER_BYTES, expected);
    Wire.putU32(controlFrame, Wire.HEADER_BYTES + 8, (int) timeoutMs);
    control(Kind.SYNC, Wire.SYNC_BODY_BYTES);
    receiveReply(Kind.SYNC, 1 + 16);
    return new SyncOutcome(replyBody[Wire.PREAMBLE_BYTES] != 0, counts(Wire.PREAMBLE_BYTES + 1));
  }

  private void control(Kind kind, int bodyLength) throws IOException {
    Wire.putHeader(controlFrame, 0, kind.code, bodyLength);
    link.write(controlFrame, 0, Wire.HEADER_BYTES + bodyLength);
  }

  private Counts counts(int offset) {
    return new Counts(Wire.getU64(replyBody, offset), Wire.getU64(replyBody, offset + 8));
  }

  @Override
  public void close() throws IOException {
    link.close();
  }
}
