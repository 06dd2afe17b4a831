package org.orbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ConnectOptionsTest {
  private static ConnectOptions parse(String json) {
    return ConnectOptions.parse(Json.parseObject(json));
  }

  private static ErrorKind failure(String json) {
    return assertThrows(WorkerException.class, () -> parse(json)).kind();
  }

  @Test
  void parsesKnownOptions() {
    ConnectOptions none = parse("{}");
    assertTrue(none.tcpNoDelayOrDefault());
    assertEquals(0, none.socketBufferBytesOrDefault());
    ConnectOptions all = parse("{\"tcp_nodelay\":false,\"socket_buffer_bytes\":65536,\"sync_scope\":\"server\"}");
    assertFalse(all.tcpNoDelayOrDefault());
    assertEquals(65536, all.socketBufferBytesOrDefault());
    assertEquals(ConnectOptions.SyncScope.SERVER, all.syncScope());
    assertEquals(2, all.syncScope().value()); // Messaging::SYNC_WITH_SERVER
  }

  @Test
  void refusesBadOptionsAsUsage() {
    assertEquals(ErrorKind.USAGE, failure("{\"no_such\":1}"));
    assertEquals(ErrorKind.USAGE, failure("{\"tcp_nodelay\":\"yes\"}"));
    assertEquals(ErrorKind.USAGE, failure("{\"socket_buffer_bytes\":0}"));
    assertEquals(ErrorKind.USAGE, failure("{\"socket_buffer_bytes\":1.5}"));
    assertEquals(ErrorKind.USAGE, failure("{\"sync_scope\":\"always\"}"));
  }

  @Test
  void serverOptionsFollowTheSameRulesWithoutSyncScope() {
    ConnectOptions server = ConnectOptions.parseServer(List.of("tcp_nodelay=false", "socket_buffer_bytes=4096"));
    assertFalse(server.tcpNoDelayOrDefault());
    assertEquals(4096, server.socketBufferBytesOrDefault());
    assertThrows(IllegalArgumentException.class, () -> ConnectOptions.parseServer(List.of("sync_scope=\"none\"")));
    assertThrows(IllegalArgumentException.class, () -> ConnectOptions.parseServer(List.of("tcp_nodelay")));
    assertThrows(IllegalArgumentException.class, () -> ConnectOptions.parseServer(List.of("tcp_nodelay=maybe")));
  }
}
