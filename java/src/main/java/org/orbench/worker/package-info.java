/**
 * What every Java worker shares, whatever its transport: the JSON-lines command loop of the client
 * contract (harness/PROTOCOL.md), the {@code run} sequence and its timed loop, the samples file, the
 * clock-cost measurement, the server-side counters and barrier, and the server's stdout events.
 *
 * <p>A transport plugs in by implementing {@link org.orbench.worker.BenchClient} (client side) and by
 * counting into a {@link org.orbench.worker.MessageCounter} (server side).
 */
package org.orbench.worker;
