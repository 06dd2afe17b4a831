package org.orbench.worker;

import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.util.Set;

/**
 * A validated {@code run} command (PROTOCOL.md). Parsed before anything is sent, so a bad field never
 * leaves a half-done run behind.
 */
public record RunSpec(
    Mode mode,
    PayloadType payloadType,
    int payloadBytes,
    int calls,
    int warmup,
    Path samplesFile,
    long syncTimeoutMs) {

  /** PROTOCOL.md's example value; the harness normally sends its own. */
  public static final long DEFAULT_SYNC_TIMEOUT_MS = 20_000;

  /**
   * Java arrays hold at most about 2^31 elements: calls (the long[] of samples) and payload bytes (one
   * byte[]) are bounded by that, minus room for the socket header.
   */
  static final int MAX_ARRAY = Integer.MAX_VALUE - 64;

  private static final Set<String> FIELDS =
      Set.of("mode", "payload_type", "payload_bytes", "calls", "warmup", "samples_file", "sync_timeout_ms");

  /**
   * Records in the payload (payload_type records), or 0: payload_bytes / 16 rounded down, as the C++ workers
   * and the harness's conformance check count them. 1 B is an empty sequence: one message, 0 bytes.
   */
  public int recordCount() {
    return payloadType == PayloadType.RECORDS ? payloadBytes / PayloadType.RECORD_BYTES : 0;
  }

  /** Elements of the payload type in this run's payload: payload_bytes / unit, rounded down. */
  public int elementCount() {
    return payloadType.elements(payloadBytes);
  }

  /**
   * Parses a run command. Throws {@link WorkerException}: {@code usage} for a missing, unknown or
   * ill-typed field, {@code unsupported} for a mode or payload type outside the supported sets.
   */
  public static RunSpec parse(JsonObject command, Set<Mode> supportedModes, Set<PayloadType> supportedTypes) {
    return parse(command, supportedModes, supportedTypes, false);
  }

  /**
   * The same for a soak run ({@code durationRun}: the command had {@code duration_s}), which has no
   * {@code calls} and no {@code samples_file}: its calls is 0 and its samples file null.
   */
  public static RunSpec parse(
      JsonObject command, Set<Mode> supportedModes, Set<PayloadType> supportedTypes, boolean durationRun) {
    if (durationRun) {
      for (String key : new String[] {"calls", "samples_file"}) {
        if (command.has(key)) {
          throw WorkerException.usage("a soak run (\"duration_s\") takes no \"" + key + "\"");
        }
      }
    }
    JsonFields.rejectUnknown(command, FIELDS);

    String modeName = JsonFields.requiredString(command, "mode");
    Mode mode = Mode.fromWireName(modeName);
    if (mode == null) {
      throw WorkerException.usage("unknown mode \"" + modeName + "\"");
    }
    if (!supportedModes.contains(mode)) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, "mode \"" + modeName + "\" not supported");
    }

    String typeName = JsonFields.requiredString(command, "payload_type");
    PayloadType type = PayloadType.fromWireName(typeName);
    if (type == null) {
      throw WorkerException.usage("unknown payload_type \"" + typeName + "\"");
    }
    if (!supportedTypes.contains(type)) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, "payload_type \"" + typeName + "\" not supported");
    }

    int payloadBytes = (int) JsonFields.unsignedLong(command, "payload_bytes", true, 0, MAX_ARRAY);
    int warmup = (int) JsonFields.unsignedLong(command, "warmup", false, 0, Integer.MAX_VALUE);
    int calls = 0;
    Path samplesFile = null;
    if (!durationRun) {
      calls = (int) JsonFields.unsignedLong(command, "calls", true, 0, MAX_ARRAY);
      if (calls == 0) {
        throw WorkerException.usage("field \"calls\" must be at least 1");
      }
      String samplesPath = JsonFields.requiredString(command, "samples_file");
      if (samplesPath.isEmpty()) {
        throw WorkerException.usage("field \"samples_file\" is empty");
      }
      samplesFile = Path.of(samplesPath);
    }
    // u32 on the socket wire and in the IDL (unsigned long).
    long syncTimeoutMs =
        JsonFields.unsignedLong(command, "sync_timeout_ms", false, DEFAULT_SYNC_TIMEOUT_MS, 0xFFFF_FFFFL);
    return new RunSpec(mode, type, payloadBytes, calls, warmup, samplesFile, syncTimeoutMs);
  }
}
