package org.orbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.gson.JsonObject;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The optional "shape" field of run (PROTOCOL.md, "Invocation shapes"). */
class ShapeTest {
  private static final Set<String> KINDS = Set.of("in", "out", "wstring", "dii");

  private static Shape take(String json) {
    return Shape.take(Json.parseObject(json), KINDS);
  }

  private static ErrorKind failure(String json) {
    return assertThrows(WorkerException.class, () -> take(json)).kind();
  }

  @Test
  void absentIsTheInCallAndAShapeIsTakenOut() {
    assertEquals(Shape.IN, take("{\"mode\":\"twoway\",\"payload_type\":\"octets\"}"));
    JsonObject command = Json.parseObject("{\"mode\":\"echo\",\"payload_type\":\"octets\",\"shape\":\"dii\"}");
    assertEquals(new Shape("dii", 1), Shape.take(command, KINDS));
    assertFalse(command.has("shape"));
    assertEquals("ami-8", new Shape("ami", 8).name());
  }

  @Test
  void badNamesAreUsageAndUnmadeOrMismatchedShapesUnsupported() {
    assertEquals(ErrorKind.USAGE, failure("{\"mode\":\"twoway\",\"shape\":\"sideways\"}"));
    assertEquals(ErrorKind.USAGE, failure("{\"mode\":\"twoway\",\"shape\":\"ami-0\"}"));
    assertEquals(ErrorKind.USAGE, failure("{\"mode\":\"twoway\",\"shape\":3}"));
    assertEquals(ErrorKind.UNSUPPORTED, failure("{\"mode\":\"twoway\",\"payload_type\":\"octets\",\"shape\":\"ami-2\"}"));
    assertEquals(ErrorKind.UNSUPPORTED, failure("{\"mode\":\"echo\",\"payload_type\":\"octets\",\"shape\":\"out\"}"));
    assertEquals(ErrorKind.UNSUPPORTED,
        failure("{\"mode\":\"twoway\",\"payload_type\":\"octets\",\"shape\":\"wstring\"}"));
  }
}
