package org.orbench.socket;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The socket baselines' wire format (harness/PROTOCOL.md, "The socket baselines' wire format"):
 *
 * <pre>
 *   0-3  magic "OBSK"   4 version (1)   5 zero   6 flags (bit 0: little-endian, always set)
 *   7    kind           8-11 body length, u32 little-endian
 * </pre>
 *
 * A reply body starts with a 12-byte preamble: u32 request id, u32 status (0 = ok), u32 reserved (0).
 * Every integer is little-endian.
 */
final class Wire {
  static final int HEADER_BYTES = 12;
  static final int PREAMBLE_BYTES = 12;
  static final byte VERSION = 1;
  static final byte FLAG_LITTLE_ENDIAN = 1;
  static final int STATUS_OK = 0;
  /** Not in PROTOCOL.md's table; the C baseline's value for a request it cannot serve. */
  static final int STATUS_ERROR = 1;

  /** SYNC request body: u64 expected, u32 timeout_ms. */
  static final int SYNC_BODY_BYTES = 12;
  /** SYNC reply body: preamble, u8 complete, u64 messages, u64 bytes. */
  static final int SYNC_REPLY_BYTES = PREAMBLE_BYTES + 1 + 8 + 8;
  /** COUNTERS reply body: preamble, u64 messages, u64 bytes. */
  static final int COUNTERS_REPLY_BYTES = PREAMBLE_BYTES + 8 + 8;

  /** The largest body this implementation takes: a Java array, with room for header and preamble. */
  static final int MAX_BODY_BYTES = Integer.MAX_VALUE - 64;

  private static final byte[] MAGIC = {'O', 'B', 'S', 'K'};
  private static final VarHandle U32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle U64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private Wire() {}

  /** A parsed header: the kind byte (0-255) and the body length. */
  record Header(int kind, int bodyLength) {}

  static void putHeader(byte[] buffer, int offset, int kind, int bodyLength) {
    System.arraycopy(MAGIC, 0, buffer, offset, MAGIC.length);
    buffer[offset + 4] = VERSION;
    buffer[offset + 5] = 0;
    buffer[offset + 6] = FLAG_LITTLE_ENDIAN;
    buffer[offset + 7] = (byte) kind;
    putU32(buffer, offset + 8, bodyLength);
  }

  /** Throws {@link WireFormatException} for a header this implementation does not speak. */
  static Header parseHeader(byte[] buffer, int offset) throws WireFormatException {
    for (int i = 0; i < MAGIC.length; i++) {
      if (buffer[offset + i] != MAGIC[i]) {
        throw new WireFormatException("bad magic (not an OBSK message)");
      }
    }
    if (buffer[offset + 4] != VERSION) {
      throw new WireFormatException("unsupported version " + (buffer[offset + 4] & 0xff));
    }
    if ((buffer[offset + 6] & FLAG_LITTLE_ENDIAN) == 0) {
      throw new WireFormatException("big-endian messages are not supported");
    }
    long bodyLength = getU32(buffer, offset + 8);
    if (bodyLength > MAX_BODY_BYTES) {
      throw new WireFormatException("body of " + bodyLength + " bytes is too large");
    }
    return new Header(buffer[offset + 7] & 0xff, (int) bodyLength);
  }

  static void putPreamble(byte[] buffer, int offset, int requestId, int status) {
    putU32(buffer, offset, requestId);
    putU32(buffer, offset + 4, status);
    putU32(buffer, offset + 8, 0);
  }

  static void putU32(byte[] buffer, int offset, int value) {
    U32.set(buffer, offset, value);
  }

  /** Unsigned, hence a long. */
  static long getU32(byte[] buffer, int offset) {
    return Integer.toUnsignedLong((int) U32.get(buffer, offset));
  }

  static void putU64(byte[] buffer, int offset, long value) {
    U64.set(buffer, offset, value);
  }

  static long getU64(byte[] buffer, int offset) {
    return (long) U64.get(buffer, offset);
  }
}
