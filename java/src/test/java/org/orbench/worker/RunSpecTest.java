package org.orbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RunSpecTest {
  private static final Set<Mode> ALL_MODES = EnumSet.allOf(Mode.class);
  private static final Set<PayloadType> OCTETS = EnumSet.of(PayloadType.OCTETS);

  private static RunSpec parse(String json) {
    return RunSpec.parse(Json.parseObject(json), ALL_MODES, EnumSet.allOf(PayloadType.class));
  }

  private static ErrorKind failure(String json, Set<PayloadType> types) {
    return assertThrows(WorkerException.class, () -> RunSpec.parse(Json.parseObject(json), ALL_MODES, types))
        .kind();
  }

  @Test
  void parsesTheProtocolExample() {
    RunSpec spec = parse("{\"cmd\": \"run\", \"mode\": \"twoway\", \"payload_type\": \"octets\", \"payload_bytes\": 1024,"
        + " \"calls\": 20000, \"warmup\": 2000, \"samples_file\": \"/abs/t.i64\", \"sync_timeout_ms\": 20000,"
        + " \"id\": 7}");
    assertEquals(
        new RunSpec(Mode.TWOWAY, PayloadType.OCTETS, 1024, 20000, 2000, Path.of("/abs/t.i64"), 20000), spec);
  }

  @Test
  void appliesDefaultsForOptionalFields() {
    RunSpec spec = parse("{\"cmd\":\"run\",\"mode\":\"oneway\",\"payload_type\":\"records\",\"payload_bytes\":64,"
        + "\"calls\":1,\"samples_file\":\"s.i64\"}");
    assertEquals(0, spec.warmup());
    assertEquals(RunSpec.DEFAULT_SYNC_TIMEOUT_MS, spec.syncTimeoutMs());
    assertEquals(4, spec.recordCount());
  }

  @Test
  void roundsRecordPayloadsDown() {
    String run = "{\"cmd\":\"run\",\"mode\":\"echo\",\"payload_type\":\"records\",\"calls\":1,\"samples_file\":\"s\",";
    assertEquals(0, parse(run + "\"payload_bytes\":1}").recordCount());
    assertEquals(62, parse(run + "\"payload_bytes\":1000}").recordCount());
    assertEquals(62, parse(run.replace("records", "strings") + "\"payload_bytes\":1000}").elementCount());
    assertEquals(250, parse(run.replace("records", "longs") + "\"payload_bytes\":1001}").elementCount());
    assertEquals(125, parse(run.replace("records", "doubles") + "\"payload_bytes\":1007}").elementCount());
    assertEquals(992, PayloadType.STRINGS.countedBytes(1000));
  }

  @Test
  void refusesBadFieldsAsUsageErrors() {
    String base = "\"cmd\":\"run\",\"mode\":\"echo\",\"payload_type\":\"octets\",\"samples_file\":\"s\"";
    Set<PayloadType> all = EnumSet.allOf(PayloadType.class);
    assertEquals(ErrorKind.USAGE, failure("{" + base + ",\"payload_bytes\":1,\"calls\":1,\"bogus\":1}", all));
    assertEquals(ErrorKind.USAGE, failure("{" + base + ",\"payload_bytes\":1.5,\"calls\":1}", all));
    assertEquals(ErrorKind.USAGE, failure("{" + base + ",\"payload_bytes\":\"1\",\"calls\":1}", all));
    assertEquals(ErrorKind.USAGE, failure("{" + base + ",\"payload_bytes\":-1,\"calls\":1}", all));
    assertEquals(ErrorKind.USAGE, failure("{" + base + ",\"payload_bytes\":1,\"calls\":0}", all));
    assertEquals(ErrorKind.USAGE, failure("{" + base + ",\"calls\":1}", all));
    assertEquals(ErrorKind.USAGE, failure("{" + base.replace("echo", "fast") + ",\"payload_bytes\":1,\"calls\":1}", all));
  }

  @Test
  void refusesAKnownButUnsupportedPayloadTypeAsUnsupported() {
    assertEquals(ErrorKind.UNSUPPORTED,
        failure("{\"cmd\":\"run\",\"mode\":\"echo\",\"payload_type\":\"records\",\"payload_bytes\":16,\"calls\":1,"
            + "\"samples_file\":\"s\"}", OCTETS));
  }
}
