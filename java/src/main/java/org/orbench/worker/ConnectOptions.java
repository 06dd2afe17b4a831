package org.orbench.worker;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.gson.JsonSyntaxException;
import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;

/**
 * The connect options of PROTOCOL.md ("Connect options"), parsed once for every Java worker; each target then
 * applies what it can and refuses the rest ({@code unsupported}). A null field means "not given".
 *
 * @param tcpNoDelay TCP_NODELAY on the connection (both ends)
 * @param socketBufferBytes SO_SNDBUF and SO_RCVBUF (both ends)
 * @param syncScope the oneway SyncScopePolicy override on the client's object reference
 */
public record ConnectOptions(Boolean tcpNoDelay, Integer socketBufferBytes, SyncScope syncScope) {
  public static final String TCP_NODELAY = "tcp_nodelay";
  public static final String SOCKET_BUFFER_BYTES = "socket_buffer_bytes";
  public static final String SYNC_SCOPE = "sync_scope";
  /** Far above any kernel's cap (net.core.wmem_max), below int overflow. */
  static final long MAX_SOCKET_BUFFER_BYTES = 1L << 30;

  public static final ConnectOptions NONE = new ConnectOptions(null, null, null);

  /** CORBA Messaging SyncScope: SYNC_NONE .. SYNC_WITH_TARGET are 0..3. */
  public enum SyncScope {
    NONE,
    TRANSPORT,
    SERVER,
    TARGET;

    public short value() {
      return (short) ordinal();
    }

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** TCP_NODELAY as asked, on by default (PROTOCOL.md). */
  public boolean tcpNoDelayOrDefault() {
    return tcpNoDelay == null || tcpNoDelay;
  }

  /** The buffer size asked for, or 0 for the OS default. */
  public int socketBufferBytesOrDefault() {
    return socketBufferBytes == null ? 0 : socketBufferBytes;
  }

  /** The connect command's {@code options}; any mistake is a usage error naming the option. */
  public static ConnectOptions parse(JsonObject options) {
    ConnectOptions out = NONE;
    for (String key : options.keySet()) {
      out = out.with(key, options.get(key));
    }
    return out;
  }

  /**
   * A server's {@code --option NAME=VALUE} arguments (VALUE is JSON: true, 65536); only the options both ends
   * set are valid there. Throws IllegalArgumentException naming the argument.
   */
  public static ConnectOptions parseServer(List<String> pairs) {
    ConnectOptions out = NONE;
    for (String pair : pairs) {
      int equals = pair.indexOf('=');
      if (equals < 0) {
        throw new IllegalArgumentException("--option needs NAME=VALUE, got \"" + pair + "\"");
      }
      String key = pair.substring(0, equals);
      if (key.equals(SYNC_SCOPE)) {
        throw new IllegalArgumentException("option sync_scope is a client option, not a server one");
      }
      try {
        out = out.with(key, JsonParser.parseString(pair.substring(equals + 1)));
      } catch (JsonSyntaxException e) {
        throw new IllegalArgumentException("--option " + pair + ": the value is not JSON (true, false, 65536)");
      } catch (WorkerException e) {
        throw new IllegalArgumentException("--option " + pair + ": " + e.getMessage());
      }
    }
    return out;
  }

  private ConnectOptions with(String key, JsonElement value) {
    switch (key) {
      case TCP_NODELAY:
        if (!value.isJsonPrimitive() || !value.getAsJsonPrimitive().isBoolean()) {
          throw WorkerException.usage("option \"tcp_nodelay\" must be true or false");
        }
        return new ConnectOptions(value.getAsBoolean(), socketBufferBytes, syncScope);
      case SOCKET_BUFFER_BYTES:
        return new ConnectOptions(tcpNoDelay, bufferBytes(value), syncScope);
      case SYNC_SCOPE:
        String name = value.isJsonPrimitive() && value.getAsJsonPrimitive().isString() ? value.getAsString() : "";
        for (SyncScope scope : SyncScope.values()) {
          if (scope.wireName().equals(name)) {
            return new ConnectOptions(tcpNoDelay, socketBufferBytes, scope);
          }
        }
        throw WorkerException.usage("option \"sync_scope\" must be one of none, transport, server, target");
      default:
        throw WorkerException.usage(
            "unknown option \"" + key + "\" (known: tcp_nodelay, socket_buffer_bytes, sync_scope)");
    }
  }

  private static int bufferBytes(JsonElement value) {
    String wrong = "option \"socket_buffer_bytes\" must be an integer from 1 to 2^30";
    if (!value.isJsonPrimitive() || !((JsonPrimitive) value).isNumber()) {
      throw WorkerException.usage(wrong);
    }
    long bytes;
    try {
      bytes = new BigDecimal(value.getAsString()).longValueExact();
    } catch (ArithmeticException | NumberFormatException e) {
      throw WorkerException.usage(wrong);
    }
    if (bytes < 1 || bytes > MAX_SOCKET_BUFFER_BYTES) {
      throw WorkerException.usage(wrong);
    }
    return (int) bytes;
  }
}
