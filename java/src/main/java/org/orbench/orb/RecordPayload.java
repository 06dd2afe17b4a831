package org.orbench.orb;

import orbench.Record;
import org.orbench.worker.Payloads;

/** Record payloads: record i carries values derived from i, so an echo can be checked field by field. */
final class RecordPayload {
  private RecordPayload() {}

  static Record[] build(int count) {
    return build(count, 0);
  }

  /** Records first .. first + count - 1 (first 1: a shape's reply). */
  static Record[] build(int count, int first) {
    Record[] records = new Record[count];
    for (int k = 0; k < count; k++) {
      int i = first + k;
      records[k] = new Record(Payloads.recordId(i), Payloads.recordValue(i), Payloads.recordFlags(i),
          (byte) Payloads.recordKind(i), (byte) Payloads.recordLevel(i));
    }
    return records;
  }

  /** Whether {@code reply} is {@code sent}, field by field (IDL structs have no equals). */
  static boolean same(Record[] sent, Record[] reply) {
    if (reply.length != sent.length) {
      return false;
    }
    for (int i = 0; i < sent.length; i++) {
      Record a = sent[i];
      Record b = reply[i];
      if (a.id != b.id
          || Double.compare(a.value, b.value) != 0
          || a.flags != b.flags
          || a.kind != b.kind
          || a.level != b.level) {
        return false;
      }
    }
    return true;
  }
}
