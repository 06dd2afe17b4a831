package org.orbench.worker;

/** What a server has received since its last reset: payload-carrying messages and their payload bytes. */
public record Counts(long messages, long bytes) {}
