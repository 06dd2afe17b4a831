/**
 * The Java blocking-socket baseline ({@code java-socket}): java.net.Socket, one thread per connection on
 * the server, and the wire format of harness/PROTOCOL.md ("OBSK" header), byte for byte the same as the C
 * baseline's so either client can be pointed at either server.
 *
 * <p>It sends GIOP's shapes (a 12-byte header, a 12-byte reply preamble) so that the difference to an ORB
 * target is the ORB's own work, not a different wire pattern.
 */
package org.orbench.socket;
