package org.orbench.testing;

import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.orbench.worker.BenchClient;
import org.orbench.worker.CommandLoop;

/** Drives a client in-process through the real command loop, one JSON line at a time. */
public final class ClientDriver {
  private final CommandLoop loop;
  /** The event lines (a soak's intervals) the commands sent before their answers, in order. */
  public final List<JsonObject> events = new ArrayList<>();

  public ClientDriver(BenchClient client) {
    this.loop = new CommandLoop(client);
    loop.setEvents(events::add);
  }

  public JsonObject send(String line) {
    return loop.handle(line);
  }

  public JsonObject connect(String endpoint, String optionsJson) {
    return send("{\"cmd\":\"connect\",\"endpoint\":\"" + endpoint + "\",\"options\":" + optionsJson + "}");
  }

  public JsonObject run(String mode, String payloadType, int payloadBytes, int calls, Path samples) {
    return send(String.format(
        "{\"cmd\":\"run\",\"mode\":\"%s\",\"payload_type\":\"%s\",\"payload_bytes\":%d,\"calls\":%d,"
            + "\"warmup\":100,\"samples_file\":\"%s\",\"sync_timeout_ms\":10000}",
        mode, payloadType, payloadBytes, calls, samples));
  }
}
