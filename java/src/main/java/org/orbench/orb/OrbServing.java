package org.orbench.orb;

import com.google.gson.JsonObject;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;
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
    Runnable stop = StopTriggers.install(new OrbStopper(orb), events);
    POA rootPoa = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
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
   * and ORB.shutdown must not be called from a request's own dispatch thread. The thread first gives the
   * reply time to leave: stopped at once, the ORB could close the connection before the reply was written
   * (the client's COMM_FAILURE, completed MAYBE, once in a loaded test run of JacORB's contract check).
   * REPLY_GRACE_MS is a bound, not a measurement: the reply is a few dozen bytes on an open connection, and
   * 200 ms leaves room for a machine loaded well beyond its CPUs.
   */
  private static final class OrbStopper implements Runnable {
    private final ORB orb;
    private static final long REPLY_GRACE_MS = 200;
    private final AtomicBoolean started = new AtomicBoolean();

    OrbStopper(ORB orb) {
      this.orb = orb;
    }

    @Override
    public void run() {
      if (!started.compareAndSet(false, true)) {
        return;
      }
      Thread thread = new Thread(() -> {
        try {
          Thread.sleep(REPLY_GRACE_MS);
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
