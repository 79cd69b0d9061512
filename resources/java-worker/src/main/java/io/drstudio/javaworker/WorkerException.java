package io.drstudio.javaworker;

/** A request failed in a way the engine should see: the message names the thing and the fix. */
final class WorkerException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String code;

    WorkerException(String code, String message) {
        super(message);
        this.code = code;
    }

    WorkerException(String code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }
}
