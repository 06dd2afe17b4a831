package org.orbench.worker;

import com.google.gson.JsonObject;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The server worker's stdout lines: one {@code ready}, or one {@code error}; a {@code stats} line for each stats
 * command on stdin; at most one {@code exit}.
 */
public final class ServerEvents {
  private final ProtocolOut out;
  private final AtomicBoolean exitReported = new AtomicBoolean();
  // The counters the stats line reports as received (the harness's progress watchdog); null: none yet.
  private volatile MessageCounter received;

  public ServerEvents(ProtocolOut out) {
    this.out = out;
  }

  public void ready(String endpoint, WorkerInfo worker) {
    ready(endpoint, worker.toJson());
  }

  /** The ready line with a worker object that carries more than {@link WorkerInfo} (e.g. delay_ns). */
  public void ready(String endpoint, JsonObject worker) {
    JsonObject line = new JsonObject();
    line.addProperty("event", "ready");
    line.addProperty("endpoint", endpoint);
    line.addProperty("pid", ProcessHandle.current().pid());
    line.add("worker", worker);
    line.add("stdin_commands", Json.strings(java.util.List.of("stats")));
    out.write(line);
  }

  /** From now on the stats line also carries these counters (since their last reset) as {@code received}. */
  public void reportReceived(MessageCounter counter) {
    received = counter;
  }

  /**
   * The answer to {@code {"cmd": "stats"}} on stdin: the process's heap counters since it started, and the
   * messages received since the last reset.
   */
  public void stats() {
    JsonObject line = new JsonObject();
    line.addProperty("event", "stats");
    MessageCounter counter = received;
    if (counter != null) {
      line.add("received", Json.counts(counter.snapshot()));
      if (counter.objectsCalled() >= 0) {
        line.addProperty("objects_called", counter.objectsCalled());
      }
    }
    line.add("memory", HeapCounters.cumulative(HeapCounters.now()));
    out.write(line);
  }

  public void error(String why) {
    JsonObject line = new JsonObject();
    line.addProperty("event", "error");
    line.addProperty("error", why);
    out.write(line);
  }

  /** Reports the final counters, once, whichever stop path (request, stdin EOF, signal) gets here first. */
  public void exit(Counts received) {
    if (!exitReported.compareAndSet(false, true)) {
      return;
    }
    JsonObject line = new JsonObject();
    line.addProperty("event", "exit");
    line.add("received", Json.counts(received));
    out.write(line);
  }
}
