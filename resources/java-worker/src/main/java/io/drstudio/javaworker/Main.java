package io.drstudio.javaworker;

import com.alibaba.fastjson2.JSON;
import com.alibaba.fastjson2.JSONObject;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;

/**
 * Entry point of the Java client worker. stdin carries the engine's frames, stdout the worker's
 * (written by one thread, see Outbox), stderr is the log. Anything else printing to stdout would
 * break the framing, so System.out is pointed at stderr before any RocketMQ class loads.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        FileOutputStream stdout = new FileOutputStream(FileDescriptor.out);
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
        WorkerConfig config;
        try {
            config = WorkerConfig.fromSystemProperties();
        } catch (IllegalStateException e) {
            Log.error(e.getMessage());
            System.exit(2);
            return;
        }
        Outbox outbox = new Outbox(new BufferedOutputStream(stdout, 1 << 16));
        Worker worker = new Worker(outbox, config);
        watchParent();
        Log.info("Java client worker " + config.workerId() + " for room " + config.room() + ", lane "
            + config.lane().wire + " (pid " + ProcessHandle.current().pid() + ", address server "
            + config.addressServer() + ", zone " + config.zone() + "/" + config.zoneMode() + ")");
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        while (true) {
            JSONObject frame;
            try {
                int len = in.readInt();
                if (len < 0 || len > Outbox.MAX_FRAME_BYTES) {
                    Log.error("frame header announces " + Integer.toUnsignedString(len) + " bytes; the engine broke the protocol");
                    Runtime.getRuntime().halt(2);
                }
                byte[] body = new byte[len];
                in.readFully(body);
                frame = JSON.parseObject(body);
            } catch (EOFException e) {
                // The engine is gone: crash-stop every client, no drain (the OS closes their sockets).
                Log.info("stdin closed; exiting");
                Runtime.getRuntime().halt(0);
                return;
            } catch (IOException e) {
                Log.error("stdin: " + e);
                Runtime.getRuntime().halt(0);
                return;
            } catch (RuntimeException e) {
                Log.error("a frame that is not JSON: " + e);
                outbox.log("error", "the Java worker got a frame that is not JSON: " + e.getMessage(), null);
                continue;
            }
            if (frame != null) worker.dispatch(frame);
        }
    }

    /** A worker re-parented (its engine died without closing stdin) exits too. */
    private static void watchParent() {
        long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
        Thread t = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
                long now = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
                if (now != parent) {
                    Log.info("parent " + parent + " is gone; exiting");
                    Runtime.getRuntime().halt(0);
                }
            }
        }, "drstudio-parent-watch");
        t.setDaemon(true);
        t.start();
    }
}
