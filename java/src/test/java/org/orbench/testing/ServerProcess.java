package org.orbench.testing;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A server worker run as a real child process, on the test class path, as the harness would run it. */
public final class ServerProcess implements AutoCloseable {
  private final Process process;
  private final BufferedReader stdout;
  private final JsonObject ready;

  private ServerProcess(Process process) throws IOException {
    this.process = process;
    this.stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line = stdout.readLine();
    if (line == null) {
      throw new IOException("server exited without a ready line, status " + waitForExit());
    }
    this.ready = JsonParser.parseString(line).getAsJsonObject();
  }

  /** Starts {@code mainClass --target TARGET --host 127.0.0.1 --port 0} with {@code jvmOptions}. */
  public static ServerProcess start(String mainClass, String target, List<String> jvmOptions, Path stderr)
      throws IOException {
    return start(mainClass, target, jvmOptions, List.of(), stderr);
  }

  /** As above, with {@code extraArgs} after the standard ones (e.g. {@code --transport nio}). */
  public static ServerProcess start(
      String mainClass, String target, List<String> jvmOptions, List<String> extraArgs, Path stderr)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.addAll(jvmOptions);
    command.addAll(List.of(mainClass, "--target", target, "--host", "127.0.0.1", "--port", "0"));
    command.addAll(extraArgs);
    Process process = new ProcessBuilder(command)
        .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()))
        .start();
    return new ServerProcess(process);
  }

  public JsonObject ready() {
    return ready;
  }

  public String endpoint() {
    return ready.get("endpoint").getAsString();
  }

  /** The next stdout line (the exit event), or null at EOF. */
  public String nextLine() throws IOException {
    return stdout.readLine();
  }

  /** Writes one line to the server's stdin (a command such as {@code {"cmd": "stats"}}). */
  public void writeLine(String line) throws IOException {
    process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().flush();
  }

  public void closeStdin() throws IOException {
    process.getOutputStream().close();
  }

  public void kill() throws InterruptedException {
    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
  }

  /** The exit status, or -1 if the process is still running after 15 s. */
  public int waitForExit() {
    try {
      return process.waitFor(15, TimeUnit.SECONDS) ? process.exitValue() : -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
