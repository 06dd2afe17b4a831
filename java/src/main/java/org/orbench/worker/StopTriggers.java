package org.orbench.worker;

import com.google.gson.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import sun.misc.Signal;

/**
 * The server worker's stop conditions besides its own shutdown request (PROTOCOL.md, "Server worker"):
 * EOF on stdin, so a server whose harness or SSH channel died goes away by itself, and SIGTERM / SIGINT.
 * Until EOF, stdin lines are commands: {@code {"cmd": "stats"}} answers a stats line; others are ignored.
 * The first of them (or of the server's own shutdown request, through the returned Runnable) runs
 * {@code stop}, which must make main return without blocking; a watchdog ends the JVM if main has not.
 */
public final class StopTriggers {
  /** How long a stop may take (ORB shutdown, a sync in progress) before the JVM is ended anyway. */
  private static final long FORCED_EXIT_AFTER_MS = 5_000;

  private StopTriggers() {}

  /** Returns the once-only stop, for the server's own shutdown request to use as well. */
  public static Runnable install(Runnable stop, ServerEvents events) {
    Runnable stopOnce = new Runnable() {
      private boolean started;

      @Override
      public synchronized void run() {
        if (started) {
          return;
        }
        started = true;
        startWatchdog();
        stop.run();
      }
    };
    watchStdin(System.in, events, stopOnce);
    // sun.misc.Signal (module jdk.unsupported) turns the signals into the same clean stop as the others,
    // exit line and status 0; without it the JVM would die with 143 and no exit line.
    Signal.handle(new Signal("TERM"), signal -> stopOnce.run());
    Signal.handle(new Signal("INT"), signal -> stopOnce.run());
    return stopOnce;
  }

  static void watchStdin(InputStream in, ServerEvents events, Runnable onEof) {
    Thread reader = new Thread(() -> {
      BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      try {
        String line;
        while ((line = lines.readLine()) != null) {
          answer(line, events);
        }
      } catch (IOException e) {
        System.err.println("orbench: stdin: " + e + "; stopping as on EOF");
      }
      onEof.run();
    }, "orbench-stdin-eof");
    reader.setDaemon(true);
    reader.start();
  }

  private static void answer(String line, ServerEvents events) {
    if (line.isBlank()) {
      return;
    }
    try {
      JsonObject command = Json.parseObject(line);
      if (command.has("cmd") && "stats".equals(command.get("cmd").getAsString())) {
        events.stats();
        return;
      }
    } catch (RuntimeException e) {
      // falls through: not a command
    }
    System.err.println("orbench: ignoring stdin line: " + line);
  }

  private static void startWatchdog() {
    Thread watchdog = new Thread(() -> {
      try {
        Thread.sleep(FORCED_EXIT_AFTER_MS);
      } catch (InterruptedException e) {
        return;
      }
      System.err.println("orbench: server did not stop within " + FORCED_EXIT_AFTER_MS + " ms; exiting");
      Runtime.getRuntime().halt(1);
    }, "orbench-stop-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }
}
