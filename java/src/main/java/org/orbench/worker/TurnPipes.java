package org.orbench.worker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The named pipes of a run with turns (PROTOCOL.md, "Turns"), open for the run: {@code wait}, read one byte per
 * turn, and each distinct {@code give}, written one byte per turn. Each is opened for reading and writing, so no
 * open waits for the other client to open its end, and a pipe never reads end-of-file while this holds it.
 */
final class TurnPipes implements AutoCloseable {
  private static final int WAITING = 0;
  private static final int GIVEN = 1;
  private static final int TIMED_OUT = 2;

  private final TurnsSpec turns;
  private final Map<Path, FileChannel> open = new HashMap<>();
  private final FileChannel waitPipe;
  private final FileChannel[] give;
  // Direct, so a read or write does not go through one of the JDK's temporary direct buffers.
  private final ByteBuffer in = ByteBuffer.allocateDirect(1);
  private final ByteBuffer out = ByteBuffer.allocateDirect(1);
  // A wait is a blocking read in the measuring thread, so the turn starts the moment the byte arrives (no poll
  // loop's delay); this thread closes the pipe under it when the turn is late, which ends the read
  // (AsynchronousCloseException) and, unlike writing a byte of its own, leaves nothing behind in the pipe.
  private final ScheduledThreadPoolExecutor watchdog;

  private TurnPipes(TurnsSpec turns) {
    this.turns = turns;
    this.watchdog = new ScheduledThreadPoolExecutor(1, task -> {
      Thread thread = new Thread(task, "orbench-turns-watchdog");
      thread.setDaemon(true);
      return thread;
    });
    watchdog.setRemoveOnCancelPolicy(true);
    this.give = new FileChannel[turns.givePaths().size()];
    try {
      this.waitPipe = channel(turns.waitPath());
      for (int i = 0; i < give.length; i++) {
        String path = turns.givePaths().get(i);
        if (!path.isEmpty()) {
          give[i] = channel(pathOf(path));
        }
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Opens the run's pipes: {@code usage} for a path that is missing or no named pipe. */
  static TurnPipes open(TurnsSpec turns) {
    return new TurnPipes(turns);
  }

  /**
   * Blocks until the turn is given (one byte read from {@code wait}) and returns the nanoseconds waited; a turn
   * not given within the timeout fails the run ({@code transport}).
   */
  long awaitTurn() {
    AtomicInteger state = new AtomicInteger(WAITING);
    ScheduledFuture<?> alarm = watchdog.schedule(() -> {
      if (state.compareAndSet(WAITING, TIMED_OUT)) {
        closeQuietly(waitPipe);
      }
    }, turns.timeoutMs(), TimeUnit.MILLISECONDS);
    long startNs = System.nanoTime();
    int read = 0;
    IOException failure = null;
    try {
      in.clear();
      read = waitPipe.read(in);
    } catch (AsynchronousCloseException e) {
      // The watchdog's close: the state says so below.
    } catch (IOException e) {
      failure = e;
    }
    long waitedNs = System.nanoTime() - startNs;
    boolean given = state.compareAndSet(WAITING, GIVEN);
    alarm.cancel(false);
    if (!given) {
      throw new WorkerException(ErrorKind.TRANSPORT, "no turn within " + turns.timeoutMs() + " ms");
    }
    if (failure != null) {
      throw new WorkerException(ErrorKind.TRANSPORT, "cannot read turn pipe " + turns.waitPath() + ": " + failure,
          failure);
    }
    if (read != 1) {
      // End of file: only a file that is no pipe ends while this holds it open for writing.
      throw WorkerException.usage("field \"turns\": \"wait\" " + turns.waitPath() + " is not a named pipe");
    }
    return waitedNs;
  }

  /** Gives the next turn: one byte to turn {@code turn}'s {@code give} pipe, if it has one. */
  void give(int turn) {
    FileChannel channel = give[turn];
    if (channel == null) {
      return;
    }
    try {
      out.clear();
      out.put(0, (byte) 't');
      // A pipe takes a byte at once unless 64 KB are queued in it, which one byte per turn never reaches.
      while (out.hasRemaining()) {
        channel.write(out);
      }
    } catch (IOException e) {
      throw new WorkerException(ErrorKind.TRANSPORT,
          "cannot write turn pipe " + turns.givePaths().get(turn) + ": " + e, e);
    }
  }

  @Override
  public void close() {
    watchdog.shutdownNow();
    open.values().forEach(TurnPipes::closeQuietly);
  }

  /** The pipe at {@code path}, opened once per run however many turns give to it. */
  private FileChannel channel(Path path) {
    FileChannel channel = open.get(path);
    if (channel != null) {
      return channel;
    }
    String bad = "field \"turns\": " + path;
    try {
      if (!Files.readAttributes(path, BasicFileAttributes.class).isOther()) {
        throw WorkerException.usage(bad + " is not a named pipe");
      }
      // READ and WRITE without CREATE: O_RDWR, which opens a FIFO at once and never makes a file.
      channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
    } catch (NoSuchFileException e) {
      throw WorkerException.usage(bad + " does not exist (the harness makes the pipes)");
    } catch (IOException e) {
      throw WorkerException.usage(bad + ": cannot open: " + e);
    }
    open.put(path, channel);
    return channel;
  }

  private static Path pathOf(String path) {
    try {
      return Path.of(path);
    } catch (InvalidPathException e) {
      throw WorkerException.usage("field \"turns\": \"give\": " + e.getMessage());
    }
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // Closing a pipe loses nothing: every byte was written by then.
    }
  }
}
