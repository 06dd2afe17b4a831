package org.orbench.socket;

/** Request kinds of the wire format; a reply carries {@code 0x80 | kind}. */
enum Kind {
  ONEWAY(1),
  TWOWAY(2),
  ECHO(3),
  SYNC(4),
  COUNTERS(5),
  RESET(6),
  SHUTDOWN(7);

  static final int REPLY_BIT = 0x80;

  final int code;

  Kind(int code) {
    this.code = code;
  }

  int replyCode() {
    return REPLY_BIT | code;
  }

  /** The request kind with this code, or null. */
  static Kind ofCode(int code) {
    for (Kind kind : values()) {
      if (kind.code == code) {
        return kind;
      }
    }
    return null;
  }
}
