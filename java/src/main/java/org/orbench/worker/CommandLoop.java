package org.orbench.worker;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The client worker's JSON-lines loop (PROTOCOL.md, "Client worker"): one command per stdin line, exactly
 * one answer line per command, in order, until {@code quit} or EOF. Every failure becomes an
 * {@code ok: false} answer and the loop goes on.
 */
public final class CommandLoop {
  private static final Set<String> CONNECT_FIELDS = Set.of("endpoint", "options");

  private final BenchClient client;
  // Where event lines sent before an answer go (a soak's intervals): the protocol stream once run() starts.
  private Consumer<JsonObject> events = event -> {};
  private boolean connected;
  private boolean quit;

  public CommandLoop(BenchClient client) {
    this.client = client;
  }

  /** Where a command's event lines go (they carry the command's id); run() sets the protocol stream. */
  public void setEvents(Consumer<JsonObject> events) {
    this.events = events;
  }

  /** Runs until quit or EOF on {@code in}. */
  public void run(BufferedReader in, ProtocolOut out) throws IOException {
    events = out::write;
    String line;
    while (!quit && (line = in.readLine()) != null) {
      if (line.isBlank()) {
        continue; // a blank line is not a command
      }
      out.write(handle(line));
    }
  }

  /** The answer to one command line. Never throws. */
  public JsonObject handle(String line) {
    JsonElement id = null;
    JsonObject answer;
    try {
      JsonObject command = Json.parseObject(line);
      id = command.get("id");
      answer = dispatch(command);
      answer.addProperty("ok", true);
    } catch (WorkerException e) {
      answer = error(e);
    } catch (Exception e) {
      WorkerException translated = client.translate(e);
      if (translated.kind() == ErrorKind.INTERNAL) {
        e.printStackTrace(); // a worker bug: the stack trace goes to stderr, kept with the run
      }
      answer = error(translated);
    } catch (OutOfMemoryError e) {
      answer = error(new WorkerException(ErrorKind.INTERNAL, "out of memory: " + e.getMessage()));
    } catch (Error e) {
      e.printStackTrace();
      answer = error(new WorkerException(ErrorKind.INTERNAL, e.toString()));
    }
    return withOkFirst(answer, id);
  }

  public boolean quitRequested() {
    return quit;
  }

  private JsonObject dispatch(JsonObject command) throws Exception {
    String name = JsonFields.requiredString(command, "cmd");
    switch (name) {
      case "hello":
        JsonFields.rejectUnknown(command, Set.of());
        return hello();
      case "connect":
        JsonFields.rejectUnknown(command, CONNECT_FIELDS);
        connected = false;
        client.connect(
            JsonFields.requiredString(command, "endpoint"), JsonFields.optionalObject(command, "options"));
        connected = true;
        return new JsonObject();
      case "run":
        JsonObject fields = command.deepCopy();
        LoadSpec load = LoadSpec.take(fields);
        SoakSpec soak = SoakSpec.take(fields);
        TurnsSpec turns = TurnsSpec.take(fields);
        Shape shape = Shape.take(fields, client.shapes());
        RunSpec spec = RunSpec.parse(fields, client.modes(), client.payloadTypes(), soak != null);
        if (!connected) {
          throw WorkerException.usage("run before a successful connect");
        }
        if (turns != null) {
          // A pool, a paced or a shaped loop is not the one loop a turn times (PROTOCOL.md, "Turns").
          if (soak != null || !shape.isIn() || load.threads() > 1 || load.objects() > 1 || load.rateHz() > 0
              || load.clients() > 1) {
            throw new WorkerException(ErrorKind.UNSUPPORTED,
                "turns need a closed-loop run of one client on one thread (shape \"in\", no load or soak fields)");
          }
          turns.check(spec);
          client.useShape(shape);
          return RunSequence.runTurns(client, spec, turns);
        }
        if (!shape.isIn() && (soak != null || load.threads() > 1 || load.objects() > 1 || load.rateHz() > 0
            || load.clients() > 1)) {
          throw new WorkerException(ErrorKind.UNSUPPORTED,
              "shape \"" + shape.name() + "\" is run by one closed-loop client on one thread and object");
        }
        client.useShape(shape);
        if (soak != null) {
          return SoakSequence.run(client, spec, load, soak, SoakSequence.withId(events, command.get("id")));
        }
        JsonObject answer = RunSequence.run(client, spec, load);
        if (!shape.isIn()) {
          answer.addProperty("shape", shape.name());
          client.shapeAnswer().entrySet().forEach(e -> answer.add(e.getKey(), e.getValue()));
        }
        return answer;
      case "reset_counters":
        // For a group of clients: the harness resets the shared server once, before it starts them all.
        JsonFields.rejectUnknown(command, Set.of());
        if (!connected) {
          throw WorkerException.usage("reset_counters before a successful connect");
        }
        client.resetCounters();
        return new JsonObject();
      case "shutdown_server":
        // check-target's: the server must reply, then stop (PROTOCOL.md, "Client worker").
        JsonFields.rejectUnknown(command, Set.of());
        if (!connected) {
          throw WorkerException.usage("shutdown_server before a successful connect");
        }
        client.shutdownServer();
        return new JsonObject();
      case "quit":
        JsonFields.rejectUnknown(command, Set.of());
        quit = true;
        return new JsonObject();
      default:
        throw WorkerException.usage("unknown command \"" + name + "\"");
    }
  }

  private JsonObject hello() {
    JsonObject timer = new JsonObject();
    timer.addProperty("clock", ClockCost.CLOCK_NAME);
    timer.addProperty("cost_ns", Math.round(ClockCost.measureNs() * 100) / 100.0);
    JsonObject answer = new JsonObject();
    answer.add("worker", client.info().toJson());
    answer.addProperty("pid", ProcessHandle.current().pid());
    answer.add("timer", timer);
    // In enum order, so every hello of every Java target lists them alike.
    List<String> modes = new ArrayList<>();
    for (Mode mode : Mode.values()) {
      if (client.modes().contains(mode)) {
        modes.add(mode.wireName());
      }
    }
    List<String> payloadTypes = new ArrayList<>();
    for (PayloadType type : PayloadType.values()) {
      if (client.payloadTypes().contains(type)) {
        payloadTypes.add(type.wireName());
      }
    }
    answer.add("modes", Json.strings(modes));
    answer.add("payload_types", Json.strings(payloadTypes));
    answer.add("shapes", Json.strings(client.shapes().stream().sorted().toList()));
    // Every Java client runs turns through the same RunSequence, whatever its transport (PROTOCOL.md, "Turns").
    answer.addProperty("turns", true);
    return answer;
  }

  private static JsonObject error(WorkerException e) {
    JsonObject answer = new JsonObject();
    answer.addProperty("ok", false);
    answer.addProperty("error", e.getMessage() == null ? e.toString() : e.getMessage());
    answer.addProperty("error_kind", e.kind().wireName());
    return answer;
  }

  /** "ok" first and "id" last, for a reader's eye; JSON does not care. */
  private static JsonObject withOkFirst(JsonObject answer, JsonElement id) {
    JsonObject ordered = new JsonObject();
    ordered.add("ok", answer.get("ok"));
    for (String key : answer.keySet()) {
      if (!key.equals("ok")) {
        ordered.add(key, answer.get(key));
      }
    }
    if (id != null) {
      ordered.add("id", id);
    }
    return ordered;
  }
}
