package org.orbench.ice;

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
 * The ice-java server worker: {@code IceServer --target NAME --host HOST --port PORT [--Ice.Name=value]...}. One
 * Bench servant in an object adapter on HOST:PORT, with Ice's server thread pool as shipped (one thread reads
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
      Args args = Args.parse(workerArgs.toArray(String[]::new), Set.of("target", "host", "port", "option"), names);
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
    Communicator communicator = Util.initialize(iceArgs);
    MessageCounter counter = new MessageCounter();
    // Communicator.shutdown only starts the stop (it may run inside the shutdown() request): no waiting.
    Runnable stop = StopTriggers.install(communicator::shutdown, events);
    ObjectAdapter adapter = communicator.createObjectAdapterWithEndpoints(
        "Bench", "tcp -h \"" + args.get("host") + "\" -p " + args.port("port"));
    ObjectPrx proxy = adapter.add(new BenchServant(counter, stop), Util.stringToIdentity("bench"));
    adapter.activate();
    events.ready(communicator.proxyToString(proxy),
        WorkerInfo.server(args.get("target"), NAME, Util.stringVersion()));
    communicator.waitForShutdown();
    events.exit(counter.snapshot());
  }
}
