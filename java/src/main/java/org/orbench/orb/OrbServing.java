package org.orbench.orb;

import com.google.gson.JsonObject;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.omg.CORBA.BAD_INV_ORDER;
import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;
import org.omg.PortableServer.POAManager;
import org.omg.PortableServer.POAManagerPackage.AdapterInactive;
import org.orbench.worker.Args;
import org.orbench.worker.MessageCounter;
import org.orbench.worker.ServerEvents;
import org.orbench.worker.StopTriggers;
import org.orbench.worker.WorkerInfo;

/**
 * The ORB server's work, apart from {@link OrbServer} so that a missing ORB is reported, not a JVM crash: one
 * Bench object in the root POA, or K with {@code --objects K}; the ready line's endpoint is the first's IOR.
 */
final class OrbServing {
  private OrbServing() {}

  static void serve(String[] argv, ServerEvents events) throws Exception {
    Set<String> required = Set.of("target", "host", "port", "orb-name", "orb-version-attribute", "orb-property");
    Set<String> known = new HashSet<>(required);
    known.addAll(OrbSettings.SERVER_ARGS);
    known.add("objects");
    Args args = Args.parse(argv, known, required);
    int objects = args.objects();
    if (System.getProperty("org.omg.CORBA.ORBClass") == null) {
      throw new IllegalArgumentException(
          "choose the ORB with -Dorg.omg.CORBA.ORBClass and -Dorg.omg.CORBA.ORBSingletonClass");
    }
    OrbSettings settings = OrbSettings.of(args);
    ORB orb = ORB.init(new String[0], settings.serverProperties(args.get("host"), args.port("port")));

    MessageCounter counter = new MessageCounter();
    counter.trackObjects(objects);
    events.reportReceived(counter);
    POA rootPoa = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
    Runnable stop = StopTriggers.install(new OrbStopper(orb, rootPoa.the_POAManager()), events);
    // K servants of the one class, each activated in the root POA with a system id: its active object map
    // holds K entries, which is what a request's object key is demultiplexed against.
    ObjectDirectory directory = new ObjectDirectory(orb);
    for (int k = 0; k < objects; k++) {
      byte[] id = rootPoa.activate_object(new BenchServant(counter, directory, k, stop));
      directory.add(rootPoa.id_to_reference(id));
    }
    directory.setDsi(rootPoa.id_to_reference(rootPoa.activate_object(new DsiBench(orb, counter))));
    rootPoa.the_POAManager().activate();

    OrbIdentity identity = OrbIdentity.of(orb, settings);
    JsonObject worker = WorkerInfo.server(args.get("target"), identity.name(), identity.version()).toJson();
    if (objects > 1) {
      worker.addProperty("objects", objects);
    }
    events.ready(orb.object_to_string(directory.reference(0)), worker);
    orb.run(); // returns once the stopper's orb.shutdown has run
    events.exit(counter.snapshot());
  }

  /**
   * Stops the ORB from a thread of its own: the shutdown() request calls this before its reply is sent,
   * and ORB.shutdown must not be called from a request's own dispatch thread. The thread first deactivates the
   * POA manager waiting for completion: that returns once no request is executing, so the shutdown() request's
   * reply has been written; stopped at once, the ORB could close the connection before it was (the client's
   * COMM_FAILURE, completed MAYBE, once in a loaded test run of JacORB's contract check). A request that never
   * completes (a client that stopped reading) must not keep the worker up: after STUCK_REQUEST_MS the ORB stops
   * anyway.
   */
  private static final class OrbStopper implements Runnable {
    private static final long STUCK_REQUEST_MS = 5000;
    private final ORB orb;
    private final POAManager manager;
    private final AtomicBoolean started = new AtomicBoolean();

    OrbStopper(ORB orb, POAManager manager) {
      this.orb = orb;
      this.manager = manager;
    }

    @Override
    public void run() {
      if (!started.compareAndSet(false, true)) {
        return;
      }
      Thread thread = new Thread(() -> {
        Thread drain = new Thread(() -> {
          try {
            manager.deactivate(false, true);
          } catch (AdapterInactive | BAD_INV_ORDER e) {
            // already inactive, or the ORB is stopping: nothing left to wait for
          }
        }, "orbench-poa-drain");
        drain.setDaemon(true);
        drain.start();
        try {
          drain.join(STUCK_REQUEST_MS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        orb.shutdown(false);
      }, "orbench-orb-shutdown");
      thread.setDaemon(true);
      thread.start();
    }
  }
}
