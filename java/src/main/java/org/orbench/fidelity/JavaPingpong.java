package org.orbench.fidelity;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The reference of {@code orbench fidelity}'s Java socket rows, written as plainly as a user would on
 * java.net.Socket and sharing nothing with the java-socket worker: the bytes of orbench-c-pingpong (a 12-byte
 * header of kind, 0 and payload length, little-endian, and the payload in one write; a 24-byte reply).
 *
 * <pre>
 *   JavaPingpong server HOST PORT      serves one connection after another until its stdin closes
 *   JavaPingpong client HOST PORT twoway|oneway PAYLOAD_BYTES CALLS WARMUP SAMPLES_FILE
 *   JavaPingpong slices HOST PORT twoway|oneway   one connection, the client's run per stdin line
 *                                                 "PAYLOAD_BYTES CALLS WARMUP SAMPLES_FILE", "done" after each
 * </pre>
 * The client writes one little-endian int64 (ns, System.nanoTime) per timed call to SAMPLES_FILE; oneway ends
 * with a FLUSH round trip and prints the receiver's messages/s from the first timed call to its reply.
 */
public final class JavaPingpong {
  private static final int TWOWAY = 1;
  private static final int ONEWAY = 2;
  private static final int FLUSH = 3;

  private JavaPingpong() {}

  public static void main(String[] args) throws IOException {
    if (args.length == 3 && args[0].equals("server")) {
      serve(args[1], Integer.parseInt(args[2]));
    } else if (args.length == 8 && args[0].equals("client")) {
      call(args);
    } else if (args.length == 4 && args[0].equals("slices")) {
      slices(args);
    } else {
      System.err.println("usage: JavaPingpong server HOST PORT | client HOST PORT twoway|oneway PAYLOAD CALLS WARMUP FILE"
          + " | slices HOST PORT twoway|oneway");
      System.exit(2);
    }
  }

  private static void serve(String host, int port) throws IOException {
    Thread stdin = new Thread(() -> {
      try {
        while (System.in.read() >= 0) {
          // whoever started us is still there
        }
      } catch (IOException e) {
        // closed either way
      }
      System.exit(0);
    });
    stdin.setDaemon(true);
    stdin.start();
    try (ServerSocket listener = new ServerSocket(port, 4, InetAddress.getByName(host))) {
      byte[] buffer = new byte[64 * 1024];
      while (true) {
        try (Socket socket = listener.accept()) {
          socket.setTcpNoDelay(true);
          serveConnection(socket.getInputStream(), socket.getOutputStream(), buffer);
        } catch (IOException e) {
          // the client closed the connection: wait for the next
        }
      }
    }
  }

  /**
   * Reads as the java-socket server does (PROTOCOL.md, "How a socket baseline reads and writes"), so that a
   * fidelity row compares the same calls: each read takes what has arrived, up to 64 KB, and the messages are
   * consumed from it as a stream.
   */
  private static void serveConnection(InputStream in, OutputStream out, byte[] buffer) throws IOException {
    byte[] header = new byte[12];
    byte[] reply = new byte[24];
    ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
    int headerBytes = 0;
    int bodyLeft = 0;
    for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
      int i = 0;
      while (i < n) {
        if (headerBytes < 12) {
          int k = Math.min(12 - headerBytes, n - i);
          System.arraycopy(buffer, i, header, headerBytes, k);
          headerBytes += k;
          i += k;
          if (headerBytes < 12) {
            break;
          }
          bodyLeft = h.getInt(8);
        }
        int k = Math.min(bodyLeft, n - i);
        bodyLeft -= k;
        i += k;
        if (bodyLeft == 0) {
          headerBytes = 0;
          if (h.getInt(0) != ONEWAY) {
            out.write(reply);
          }
        }
      }
    }
  }

  private static void call(String[] args) throws IOException {
    try (Socket socket = connect(args[1], args[2])) {
      run(socket, args[3].equals("oneway"), Integer.parseInt(args[4]), Integer.parseInt(args[5]),
          Integer.parseInt(args[6]), args[7]);
    }
  }

  /** One connection, one run per stdin line "PAYLOAD_BYTES CALLS WARMUP SAMPLES_FILE", each answered "done". */
  private static void slices(String[] args) throws IOException {
    BufferedReader lines = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (Socket socket = connect(args[1], args[2])) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        String[] run = line.trim().split("\\s+");
        run(socket, args[3].equals("oneway"), Integer.parseInt(run[0]), Integer.parseInt(run[1]),
            Integer.parseInt(run[2]), run[3]);
        System.out.println("done");
        System.out.flush();
      }
    }
  }

  private static Socket connect(String host, String port) throws IOException {
    Socket socket = new Socket(host, Integer.parseInt(port));
    socket.setTcpNoDelay(true);
    return socket;
  }

  private static void run(Socket socket, boolean oneway, int payloadBytes, int calls, int warmup, String samplesFile)
      throws IOException {
    InputStream in = socket.getInputStream();
    DataInputStream data = new DataInputStream(in);
    OutputStream out = socket.getOutputStream();
    byte[] request = new byte[12 + payloadBytes];
    ByteBuffer.wrap(request).order(ByteOrder.LITTLE_ENDIAN).putInt(oneway ? ONEWAY : TWOWAY).putInt(0).putInt(payloadBytes);
    for (int i = 0; i < payloadBytes; i++) {
      request[12 + i] = (byte) i;
    }
    byte[] flush = new byte[12];
    ByteBuffer.wrap(flush).order(ByteOrder.LITTLE_ENDIAN).putInt(FLUSH);
    byte[] reply = new byte[24];
    long[] samples = new long[calls];
    long first = 0;
    for (int i = 0; i < warmup + calls; i++) {
      if (i == warmup) {
        if (oneway) {
          out.write(flush);
          data.readFully(reply);
        }
        first = System.nanoTime();
      }
      long before = System.nanoTime();
      out.write(request);
      if (!oneway) {
        data.readFully(reply);
      }
      if (i >= warmup) {
        samples[i - warmup] = System.nanoTime() - before;
      }
    }
    if (oneway) {
      out.write(flush);
      data.readFully(reply);
      System.out.printf("receiver_msgs_per_s %.1f%n", calls * 1e9 / (System.nanoTime() - first));
    }
    ByteBuffer bytes = ByteBuffer.allocate(8 * calls).order(ByteOrder.LITTLE_ENDIAN);
    for (long s : samples) {
      bytes.putLong(s);
    }
    try (FileOutputStream file = new FileOutputStream(samplesFile)) {
      file.write(bytes.array());
    }
  }
}
