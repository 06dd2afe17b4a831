package org.orbench.socket;

import java.io.EOFException;
import java.io.IOException;
import org.orbench.worker.Counts;
import org.orbench.worker.MessageCounter;
import org.orbench.worker.SyncOutcome;

/**
 * Serves one client connection, over any {@link Link}, one request at a time, on its own thread. Every reply
 * is one write from a buffer prepared beforehand; an echo's request body is read straight into the reply
 * buffer, behind the header and preamble, so echoing costs no extra copy; a payload that is only counted is
 * dropped where the link received it ({@link Link#discard}).
 */
final class ConnectionHandler implements Runnable {
  private static final int INPUT_BUFFER_BYTES = 64 * 1024;
  private static final int REPLY_OFFSET = Wire.HEADER_BYTES + Wire.PREAMBLE_BYTES;

  private final Link link;
  private final String peer;
  private final MessageCounter counter;
  private final Runnable onShutdown;
  /** A known-answer server's spin per payload-carrying request (PROTOCOL.md, {@code --delay-ns}); 0: none. */
  private final long delayNs;

  private final byte[] header = new byte[Wire.HEADER_BYTES];
  private byte[] body = new byte[INPUT_BUFFER_BYTES];
  private byte[] reply = new byte[REPLY_OFFSET + INPUT_BUFFER_BYTES];
  /** The request id of a reply preamble: the request's ordinal on this connection, from 0, all kinds. */
  private int requestId;

  ConnectionHandler(Link link, String peer, MessageCounter counter, Runnable onShutdown, long delayNs) {
    this.link = link;
    this.peer = peer;
    this.counter = counter;
    this.onShutdown = onShutdown;
    this.delayNs = delayNs;
  }

  /**
   * Spins on the clock for {@code ns}: real CPU work on the server's core, not a sleep, so that it costs what
   * an ORB's own work would. The clock is read again at least once after the deadline, as in the C server.
   */
  static void spinFor(long ns) {
    long deadline = System.nanoTime() + ns;
    while (System.nanoTime() - deadline < 0) {
      // spin: the known answer is time on this CPU
    }
  }

  @Override
  public void run() {
    try (link) {
      while (serveOne()) {
        requestId++;
      }
    } catch (EOFException e) {
      System.err.println("orbench: connection closed inside a message: " + e.getMessage());
    } catch (IOException e) {
      System.err.println("orbench: connection " + peer + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Serves one request; false at a clean end of the connection or after SHUTDOWN. */
  private boolean serveOne() throws IOException, InterruptedException {
    if (!link.readFullyOrEof(header, 0, Wire.HEADER_BYTES)) {
      return false;
    }
    Wire.Header parsed = Wire.parseHeader(header, 0);
    int length = parsed.bodyLength();
    Kind kind = Kind.ofCode(parsed.kind());
    if (kind == Kind.ECHO) {
      reply = Streams.ensureCapacity(reply, REPLY_OFFSET + length);
      link.readFully(reply, REPLY_OFFSET, length);
    } else if (kind == Kind.ONEWAY || kind == Kind.TWOWAY) {
      link.discard(length);
    } else {
      body = Streams.ensureCapacity(body, length);
      link.readFully(body, 0, length);
    }
    if (delayNs > 0 && (kind == Kind.ONEWAY || kind == Kind.TWOWAY || kind == Kind.ECHO)) {
      spinFor(delayNs);
    }
    if (kind == null || !controlBodyFits(kind, length)) {
      // The header was sound, so the stream still is: answer an error (as the C server does), go on.
      System.err.printf("orbench: request kind %d with a %d-byte body: answered an error%n", parsed.kind(), length);
      sendReply(Kind.REPLY_BIT | parsed.kind(), Wire.STATUS_ERROR, 0);
      return true;
    }
    switch (kind) {
      case ONEWAY:
        counter.count(length);
        return true;
      case TWOWAY:
        counter.count(length);
        sendReply(kind.replyCode(), Wire.STATUS_OK, 0);
        return true;
      case ECHO:
        counter.count(length);
        sendReply(kind.replyCode(), Wire.STATUS_OK, length);
        return true;
      case SYNC:
        SyncOutcome outcome = counter.await(Wire.getU64(body, 0), Wire.getU32(body, 8));
        reply[REPLY_OFFSET] = (byte) (outcome.complete() ? 1 : 0);
        putCounts(REPLY_OFFSET + 1, outcome.received());
        sendReply(kind.replyCode(), Wire.STATUS_OK, 1 + 16);
        return true;
      case COUNTERS:
        putCounts(REPLY_OFFSET, counter.snapshot());
        sendReply(kind.replyCode(), Wire.STATUS_OK, 16);
        return true;
      case RESET:
        counter.reset();
        sendReply(kind.replyCode(), Wire.STATUS_OK, 0);
        return true;
      case SHUTDOWN:
        sendReply(kind.replyCode(), Wire.STATUS_OK, 0);
        onShutdown.run();
        return false;
      default:
        throw new IllegalStateException("kind " + kind);
    }
  }

  /** Control requests have fixed bodies; payload-carrying ones take any length. */
  private static boolean controlBodyFits(Kind kind, int length) {
    switch (kind) {
      case SYNC:
        return length == Wire.SYNC_BODY_BYTES;
      case COUNTERS:
      case RESET:
      case SHUTDOWN:
        return length == 0;
      default:
        return true;
    }
  }

  private void putCounts(int offset, Counts counts) {
    Wire.putU64(reply, offset, counts.messages());
    Wire.putU64(reply, offset + 8, counts.bytes());
  }

  /** Header and preamble in front of the {@code afterPreamble} bytes already in the reply buffer. */
  private void sendReply(int replyKind, int status, int afterPreamble) throws IOException {
    int bodyLength = Wire.PREAMBLE_BYTES + afterPreamble;
    Wire.putHeader(reply, 0, replyKind, bodyLength);
    Wire.putPreamble(reply, Wire.HEADER_BYTES, requestId, status);
    link.write(reply, 0, Wire.HEADER_BYTES + bodyLength);
  }
}
