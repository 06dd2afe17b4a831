package org.orbench.orb;

import orbench.DoublesHelper;
import orbench.LongsHelper;
import orbench.OctetsHelper;
import orbench.RecordsHelper;
import orbench.StringsHelper;
import org.omg.CORBA.ARG_IN;
import org.omg.CORBA.Any;
import org.omg.CORBA.BAD_OPERATION;
import org.omg.CORBA.Bounds;
import org.omg.CORBA.NVList;
import org.omg.CORBA.ORB;
import org.omg.CORBA.ServerRequest;
import org.omg.CORBA.TypeCode;
import org.omg.PortableServer.DynamicImplementation;
import org.omg.PortableServer.POA;
import org.orbench.worker.MessageCounter;
import org.orbench.worker.PayloadType;

/**
 * The Bench object served through the dynamic skeleton interface (the shape dsi, PROTOCOL.md): send_* and
 * echo_* decoded from the ServerRequest with the IDL's TypeCodes, counted like the static servant's.
 */
final class DsiBench extends DynamicImplementation {
  private static final String[] INTERFACES = {"IDL:orbench/Bench:1.0"};
  private final ORB orb;
  private final MessageCounter counter;

  DsiBench(ORB orb, MessageCounter counter) {
    this.orb = orb;
    this.counter = counter;
  }

  @Override
  public void invoke(ServerRequest request) {
    String op = request.operation();
    boolean echo = op.startsWith("echo_");
    switch (op) {
      case "send", "echo_octets" -> {
        Any data = argument(request, OctetsHelper.type());
        counter.count(OctetsHelper.extract(data).length, 0);
        reply(request, echo, data);
      }
      case "send_records", "echo_records" -> {
        Any data = argument(request, RecordsHelper.type());
        counter.count((long) PayloadType.RECORD_BYTES * RecordsHelper.extract(data).length, 0);
        reply(request, echo, data);
      }
      case "send_longs", "echo_longs" -> {
        Any data = argument(request, LongsHelper.type());
        counter.count(4L * LongsHelper.extract(data).length, 0);
        reply(request, echo, data);
      }
      case "send_doubles", "echo_doubles" -> {
        Any data = argument(request, DoublesHelper.type());
        counter.count(8L * DoublesHelper.extract(data).length, 0);
        reply(request, echo, data);
      }
      case "send_strings", "echo_strings" -> {
        Any data = argument(request, StringsHelper.type());
        counter.count(BenchServant.stringCount(StringsHelper.extract(data)), 0);
        reply(request, echo, data);
      }
      default -> throw new BAD_OPERATION("the DSI object serves send_* and echo_* only: " + op);
    }
  }

  /** The one in argument, decoded into an Any of type {@code type}. */
  private Any argument(ServerRequest request, TypeCode type) {
    NVList args = orb.create_list(1);
    Any data = orb.create_any();
    data.type(type);
    args.add_value("data", data, ARG_IN.value);
    request.arguments(args);
    try {
      return args.item(0).value();
    } catch (Bounds e) {
      throw new BAD_OPERATION("no argument decoded: " + e);
    }
  }

  private static void reply(ServerRequest request, boolean echo, Any data) {
    if (echo) {
      request.set_result(data); // the argument's Any as the result: its value unchanged
    }
  }

  @Override
  public String[] _all_interfaces(POA poa, byte[] objectId) {
    return INTERFACES.clone();
  }
}
