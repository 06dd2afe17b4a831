package org.orbench.worker;

/** The answer of the server's barrier: false {@code complete} means its timeout passed first. */
public record SyncOutcome(boolean complete, Counts received) {}
