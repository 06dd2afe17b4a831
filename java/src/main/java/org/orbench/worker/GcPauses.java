package org.orbench.worker;

import com.google.gson.JsonObject;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * The JVM's stop-the-world collections since the last look, from its GarbageCollectorMXBeans: their count
 * and their total time (milliseconds, the beans' resolution). A bean whose name ends in "Cycles" (ZGC,
 * Shenandoah) times concurrent work, not pauses, and is left out; G1's beans (Young, Old, and from JDK 20
 * "Concurrent GC", its Remark and Cleanup pauses) all time pauses.
 */
final class GcPauses {
  private final List<GarbageCollectorMXBean> beans =
      ManagementFactory.getGarbageCollectorMXBeans().stream()
          .filter(bean -> !bean.getName().endsWith("Cycles"))
          .toList();
  private long lastCount = totalCount();
  private long lastTimeMs = totalTimeMs();

  /** {"collections": n, "time_ms": t} since the previous call (or since this object was made). */
  JsonObject sinceLast() {
    long count = totalCount();
    long timeMs = totalTimeMs();
    JsonObject out = new JsonObject();
    out.addProperty("collections", count - lastCount);
    out.addProperty("time_ms", timeMs - lastTimeMs);
    lastCount = count;
    lastTimeMs = timeMs;
    return out;
  }

  private long totalCount() {
    long total = 0;
    for (GarbageCollectorMXBean bean : beans) {
      total += Math.max(0, bean.getCollectionCount());
    }
    return total;
  }

  private long totalTimeMs() {
    long total = 0;
    for (GarbageCollectorMXBean bean : beans) {
      total += Math.max(0, bean.getCollectionTime());
    }
    return total;
  }
}
