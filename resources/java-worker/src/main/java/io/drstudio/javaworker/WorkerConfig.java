package io.drstudio.javaworker;

/**
 * What this JVM was launched for: one room and one lane, because the address server, zone mode and
 * a few client timers are JVM-wide system properties (see java-worker-command.ts).
 */
record WorkerConfig(String workerId, String room, Lane lane, String addressServer, String zone, boolean zoneMode) {

    static WorkerConfig fromSystemProperties() {
        String laneName = System.getProperty("drstudio.lane", "");
        Lane lane = Lane.parse(laneName);
        if (lane == null) {
            throw new IllegalStateException("-Ddrstudio.lane is \"" + laneName + "\"; start the worker with one of "
                + Lane.names() + " (java-worker-command.ts does)");
        }
        String domain = System.getProperty("rocketmq.namesrv.domain");
        return new WorkerConfig(
            System.getProperty("drstudio.workerId", "java-worker"),
            System.getProperty("drstudio.room", ""),
            lane,
            domain == null || domain.isBlank() ? null : domain,
            System.getProperty("rocketmq.zone"),
            Boolean.parseBoolean(System.getProperty("rocketmq.zone.mode", "false")));
    }

    /**
     * Refuses a client this JVM cannot host faithfully, naming the JVM it needs instead: another
     * lane, another room's zone, or an address server other than the one this JVM was started with.
     */
    void check(ClientSpec spec) {
        if (spec.lane != lane) {
            throw new WorkerException("wrong-lane", "client " + spec.id + " is on lane " + spec.lane.wire
                + " but worker " + workerId + " was started for " + lane.wire
                + "; start one Java worker per room and lane (javaWorkerCommand)");
        }
        if (!room.isEmpty() && !room.equals(spec.room)) {
            throw new WorkerException("wrong-room", "client " + spec.id + " is in room " + spec.room
                + " but worker " + workerId + " serves room " + room + "; create it in that room's Java worker");
        }
        if (lane == Lane.JAVA_ZONE && !(zoneMode && spec.room.equals(zone))) {
            throw new WorkerException("wrong-lane", "worker " + workerId + " runs without zone mode for "
                + spec.room + " (rocketmq.zone=" + zone + ", rocketmq.zone.mode=" + zoneMode
                + "); java-zone clients need -Drocketmq.zone=" + spec.room + " -Drocketmq.zone.mode=true");
        }
        if (lane != Lane.JAVA_ZONE && (zone != null || zoneMode)) {
            throw new WorkerException("wrong-lane", "worker " + workerId + " runs in zone mode; " + lane.wire
                + " clients must not be filtered by zone");
        }
        ClientSpec.ManagementNode mgmt = spec.ownManagementNode();
        if (mgmt != null) {
            String want = hostPort(mgmt.url());
            if (addressServer == null || !addressServer.equals(want)) {
                throw new WorkerException("wrong-address-server", "client " + spec.id + " should find its name servers at "
                    + mgmt.id() + " (" + want + ") but worker " + workerId + " was started with "
                    + (addressServer == null ? "no address server" : "-Drocketmq.namesrv.domain=" + addressServer)
                    + "; start its worker with -Drocketmq.namesrv.domain=" + want);
            }
        }
    }

    /** `http://198.18.1.4:8080/` → `198.18.1.4:8080` (what rocketmq.namesrv.domain takes). */
    static String hostPort(String url) {
        String s = url.replaceFirst("^[a-zA-Z]+://", "");
        int slash = s.indexOf('/');
        return slash >= 0 ? s.substring(0, slash) : s;
    }
}
