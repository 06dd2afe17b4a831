package org.orbench.grpc;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.orbench.worker.Args;
import org.orbench.worker.MessageCounter;
import org.orbench.worker.ProtocolOut;
import org.orbench.worker.ServerEvents;
import org.orbench.worker.StopTriggers;
import org.orbench.worker.WorkerInfo;

/**
 * The grpc-java server worker: {@code GrpcServer --target NAME --host HOST --port PORT [--executor E]}. Serves
 * the Bench service on HOST:PORT with grpc-java's defaults: Netty's event loops read and write, and every call
 * runs on gRPC's default executor, a cached thread pool that grows while its threads are busy. {@code
 * --executor} picks another (the descriptor's threading settings): {@code fixed:N}, a fixed pool of N threads,
 * or {@code direct}, calls run on Netty's event loop threads. Its endpoint is {@code grpc://HOST:PORT}. Runs
 * until the shutdown() call, EOF on stdin, SIGTERM or SIGINT.
 */
public final class GrpcServer {
  private GrpcServer() {}

  public static void main(String[] argv) {
    ProtocolOut out = ProtocolOut.takeStdout();
    ServerEvents events = new ServerEvents(out);
    int status = 0;
    try {
      Set<String> names = Set.of("target", "host", "port");
      Args args = Args.parse(argv, Set.of("target", "host", "port", "option", "executor"), names);
      if (!args.all("option").isEmpty()) {
        events.error("grpc-java sets no server options (Netty sets TCP_NODELAY itself): " + args.all("option"));
        System.exit(2);
      }
      serve(args, events);
    } catch (IllegalArgumentException e) {
      events.error(e.getMessage());
      status = 2;
    } catch (Exception e) {
      e.printStackTrace();
      events.error(e.getMessage() == null ? e.toString() : e.getMessage());
      status = 1;
    }
    System.exit(status); // Netty's threads are not all daemons
  }

  private static void serve(Args args, ServerEvents events) throws Exception {
    MessageCounter counter = new MessageCounter();
    events.reportReceived(counter);
    AtomicReference<Server> server = new AtomicReference<>();
    Runnable stop = StopTriggers.install(() -> stop(server.get()), events);
    String host = args.get("host");
    NettyServerBuilder builder = NettyServerBuilder
        .forAddress(new InetSocketAddress(InetAddress.getByName(host), args.port("port")))
        .addService(new BenchService(counter, stop));
    Server started = withExecutor(builder, args.get("executor")).build();
    server.set(started);
    started.start();
    events.ready(GrpcEndpoint.of(host, started.getPort()),
        WorkerInfo.server(args.get("target"), GrpcIdentity.NAME, GrpcIdentity.version()));
    started.awaitTermination();
    events.exit(counter.snapshot());
  }

  /** The executor {@code --executor} names: absent or {@code default}, grpc-java's own (a cached pool). */
  static NettyServerBuilder withExecutor(NettyServerBuilder builder, String executor) {
    if (executor == null || executor.equals("default")) {
      return builder;
    }
    if (executor.equals("direct")) {
      return builder.directExecutor();
    }
    if (executor.startsWith("fixed:")) {
      try {
        int threads = Integer.parseInt(executor.substring("fixed:".length()));
        if (threads >= 1) {
          return builder.executor(Executors.newFixedThreadPool(threads));
        }
      } catch (NumberFormatException e) {
        // reported below
      }
    }
    throw new IllegalArgumentException("--executor must be default, direct or fixed:N (N >= 1), got " + executor);
  }

  /**
   * Starts an orderly shutdown and returns at once (it may run inside the shutdown() call); calls still open
   * after a second (push streams that clients keep open) are cancelled.
   */
  private static void stop(Server server) {
    if (server == null) {
      System.exit(0); // stopped before it was built: nothing to wind down
      return;
    }
    server.shutdown();
    Thread closer = new Thread(() -> {
      try {
        if (!server.awaitTermination(1, TimeUnit.SECONDS)) {
          server.shutdownNow();
        }
      } catch (InterruptedException e) {
        server.shutdownNow();
      }
    }, "orbench-grpc-stop");
    closer.setDaemon(true);
    closer.start();
  }
}
