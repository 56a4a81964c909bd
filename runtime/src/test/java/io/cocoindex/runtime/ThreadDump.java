package io.cocoindex.runtime;

import java.util.Map;

/** Every thread's name, state and stack: what a test that timed out waiting was waiting on. */
final class ThreadDump {
  private ThreadDump() {}

  static String ofAllThreads() {
    StringBuilder dump = new StringBuilder();
    for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
      dump.append('"').append(e.getKey().getName()).append("\" ").append(e.getKey().getState())
          .append('\n');
      for (StackTraceElement frame : e.getValue()) {
        dump.append("    at ").append(frame).append('\n');
      }
    }
    return dump.toString();
  }
}
