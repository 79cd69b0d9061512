package io.drstudio.javaworker;

import java.time.Instant;

/** The worker's own log lines: stderr only (the engine keeps it in the worker's log file). */
final class Log {
    private Log() {
    }

    static void info(String message) {
        line("INFO", message);
    }

    static void warn(String message) {
        line("WARN", message);
    }

    static void error(String message) {
        line("ERROR", message);
    }

    private static void line(String level, String message) {
        System.err.println(Instant.now() + " " + level + " [" + Thread.currentThread().getName() + "] " + message);
    }
}
