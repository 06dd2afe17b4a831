package org.orbench.ice;

import com.google.gson.JsonObject;
import com.zeroc.Ice.Communicator;
import com.zeroc.Ice.ObjectAdapter;
import com.zeroc.Ice.ObjectPrx;
import com.zeroc.Ice.Util;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.orbench.worker.Args;
import org.orbench.worker.MessageCounter;
import org.orbench.worker.ProtocolOut;
import org.orbench.worker.ServerEvents;
import org.orbench.worker.StopTriggers;
import org.orbench.worker.WorkerInfo;

/**
 * The ice-java server worker: {@code IceServer --target NAME --host HOST --port PORT [--objects K]
 * [--Ice.Name=value]...}. One Bench servant in an object adapter on HOST:PORT (K with --objects K, identities
 * bench, bench-1, ...), with Ice's server thread pool as shipped (one thread reads
 * and dispatches every connection's requests). Its endpoint is the stringified proxy. Runs until the
 * shutdown() request, EOF on stdin, SIGTERM or SIGINT.
 */
public final class IceServer {
  static final String NAME = "Ice";

  private IceServer() {}

  public static void main(String[] argv) {
    ProtocolOut out = ProtocolOut.takeStdout();
    ServerEvents events = new ServerEvents(out);
    List<String> iceArgs = new ArrayList<>();
    List<String> workerArgs = new ArrayList<>();
    for (String arg : argv) {
      (arg.startsWith("--Ice.") ? iceArgs : workerArgs).add(arg);
    }
    int status = 0;
    try {
      Set<String> names = Set.of("target", "host", "port");
      Args args = Args.parse(
          workerArgs.toArray(String[]::new), Set.of("target", "host", "port", "option", "objects"), names);
      if (!args.all("option").isEmpty()) {
        events.error("ice-java sets no server options (Ice sets TCP_NODELAY itself): " + args.all("option"));
        System.exit(2);
      }
      serve(args, iceArgs.toArray(String[]::new), events);
    } catch (IllegalArgumentException e) {
      events.error(e.getMessage());
      status = 2;
    } catch (Exception e) {
      e.printStackTrace();
      events.error(e.getMessage() == null ? e.toString() : e.getMessage());
      status = 1;
    }
    // A sync() may still wait on its daemon thread; Ice's threads are not all daemons.
    System.exit(status);
  }

  private static void serve(Args args, String[] iceArgs, ServerEvents events) {
    int objects = args.objects();
    Communicator communicator = Util.initialize(iceArgs);
    MessageCounter counter = new MessageCounter();
    counter.trackObjects(objects);
    events.reportReceived(counter);
    // Communicator.shutdown only starts the stop (it may run inside the shutdown() request): no waiting.
    Runnable stop = StopTriggers.install(communicator::shutdown, events);
    ObjectAdapter adapter = communicator.createObjectAdapterWithEndpoints(
        "Bench", "tcp -h \"" + args.get("host") + "\" -p " + args.port("port"));
    // K servants of the one class in the adapter's active servant map, one identity each.
    ObjectPrx proxy = null;
    for (int k = 0; k < objects; k++) {
      ObjectPrx added = adapter.add(new BenchServant(counter, k, objects, stop), BenchServant.identity(k));
      if (k == 0) {
        proxy = added;
      }
    }
    adapter.activate();
    JsonObject worker = WorkerInfo.server(args.get("target"), NAME, Util.stringVersion()).toJson();
    if (objects > 1) {
      worker.addProperty("objects", objects);
    }
    events.ready(communicator.proxyToString(proxy), worker);
    communicator.waitForShutdown();
    events.exit(counter.snapshot());
  }
}
