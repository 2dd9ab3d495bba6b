package rmq.interop;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.remoting.exception.RemotingException;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * What tools/rocketmq.sh needs from the admin API, without mqadmin's seconds of graceful Netty shutdown per call.
 * Runs on the server classpath (rocketmq-tools is a provided dependency). One source for 4.x and 5.x: the route and
 * cluster types moved from org.apache.rocketmq.common.protocol to org.apache.rocketmq.remoting.protocol in 5.0, so
 * they are never named ({@code var}).
 *
 * <pre>
 * ClusterAdmin NAMESRV wait-cluster CLUSTER N TIMEOUT_S       until N masters are registered; prints "name addr"
 * ClusterAdmin NAMESRV create-topics CLUSTER TIMEOUT_S TOPIC:QUEUES...
 *     UPDATE_AND_CREATE_TOPIC (perm 6, QUEUES read = write queues) on every master of CLUSTER, then waits until
 *     the NameServer's route lists the topic on all of them
 * ClusterAdmin NAMESRV auth CLUSTER [user NAME PASSWORD | acl NAME RESOURCES ACTIONS]...
 *     on every master of CLUSTER (5.3+ authentication/authorization): creates normal users, then ACLs that
 *     allow user NAME the ACTIONS (comma-separated, e.g. Pub,Sub) on the RESOURCES (e.g. Topic:A*,Group:B)
 * </pre>
 * With -Drmq.acl.tools=FILE every request is signed with the credentials of FILE (see Peer.aclHook).
 * Exit status 0 on success, 1 on failure or timeout (reason on stderr).
 */
public final class ClusterAdmin {
    private ClusterAdmin() {
    }

    public static void main(String[] argv) {
        Peer.init("admin");
        int rc;
        try {
            rc = run(argv);
        } catch (Exception e) {
            Peer.log("ClusterAdmin: %s", e);
            rc = 1;
        }
        // no admin.shutdown(): its graceful Netty shutdown costs seconds and nothing is left to flush
        System.exit(rc);
    }

    private static int run(String[] argv) throws Exception {
        if (argv.length < 2) {
            Peer.log("usage: ClusterAdmin NAMESRV wait-cluster CLUSTER N TIMEOUT_S | "
                + "NAMESRV create-topics CLUSTER TIMEOUT_S TOPIC:QUEUES...");
            return 64;
        }
        DefaultMQAdminExt admin = new DefaultMQAdminExt(Peer.aclHook(), 5000);
        admin.setNamesrvAddr(argv[0]);
        admin.setInstanceName("rmq-cluster-admin-" + ProcessHandle.current().pid());
        admin.setVipChannelEnabled(false);
        admin.start();
        switch (argv[1]) {
            case "wait-cluster":
                return waitCluster(admin, argv[2], Integer.parseInt(argv[3]), Long.parseLong(argv[4]) * 1000);
            case "create-topics":
                return createTopics(admin, argv[2], Long.parseLong(argv[3]) * 1000,
                    List.of(argv).subList(4, argv.length));
            case "auth":
                return auth(admin, argv[2], List.of(argv).subList(3, argv.length));
            default:
                Peer.log("ClusterAdmin: unknown command %s", argv[1]);
                return 64;
        }
    }

    /** Master addresses of the cluster's brokers, by broker name. */
    private static Map<String, String> masters(DefaultMQAdminExt admin, String cluster) throws Exception {
        var info = admin.examineBrokerClusterInfo();
        Map<String, String> out = new TreeMap<>();
        Set<String> names = info.getClusterAddrTable() == null ? null : info.getClusterAddrTable().get(cluster);
        if (names == null) {
            return out;
        }
        for (String name : names) {
            var bd = info.getBrokerAddrTable().get(name);
            String addr = bd == null ? null : bd.getBrokerAddrs().get(0L);
            if (addr != null) {
                out.put(name, addr);
            }
        }
        return out;
    }

    private static int waitCluster(DefaultMQAdminExt admin, String cluster, int n, long timeoutMs)
        throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        Map<String, String> m = Map.of();
        String last = "";
        while (System.currentTimeMillis() < deadline) {
            try {
                m = masters(admin, cluster);
                if (m.size() >= n) {
                    m.forEach((k, v) -> System.err.println(k + " " + v));
                    return 0;
                }
            } catch (Exception e) {
                last = e.toString();
            }
            Thread.sleep(300);
        }
        Peer.log("ClusterAdmin: %d of %d brokers of %s registered after %d ms: %s %s", m.size(), n, cluster,
            timeoutMs, m, last);
        return 1;
    }

    /** A call that may time out on a starved machine (busy cores): retried until the deadline. */
    private interface Call<T> {
        T run() throws Exception;
    }

    private static <T> T retry(long deadline, Call<T> call) throws Exception {
        while (true) {
            try {
                return call.run();
            } catch (RemotingException e) {
                if (System.currentTimeMillis() >= deadline) {
                    throw e;
                }
                Peer.log("ClusterAdmin: %s; retrying", e);
                Thread.sleep(500);
            }
        }
    }

    private static int createTopics(DefaultMQAdminExt admin, String cluster, long timeoutMs, List<String> specs)
        throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        Map<String, String> brokers = retry(deadline, () -> masters(admin, cluster));
        if (brokers.isEmpty()) {
            Peer.log("ClusterAdmin: no broker registered in cluster %s", cluster);
            return 1;
        }
        Map<String, Integer> topics = new TreeMap<>();
        for (String spec : specs) {
            int colon = spec.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("TOPIC:QUEUES expected, got " + spec);
            }
            topics.put(spec.substring(0, colon), Integer.parseInt(spec.substring(colon + 1)));
        }
        for (Map.Entry<String, Integer> t : topics.entrySet()) {
            TopicConfig tc = new TopicConfig(t.getKey(), t.getValue(), t.getValue(),
                PermName.PERM_READ | PermName.PERM_WRITE);
            for (Map.Entry<String, String> b : brokers.entrySet()) {
                retry(deadline, () -> {
                    admin.createAndUpdateTopicConfig(b.getValue(), tc);
                    return null;
                });
            }
        }
        // the broker reports the change to the NameServer asynchronously
        List<String> missing = new ArrayList<>(topics.keySet());
        while (true) {
            missing.clear();
            for (Map.Entry<String, Integer> t : topics.entrySet()) {
                if (!routed(admin, t.getKey(), t.getValue(), brokers.keySet())) {
                    missing.add(t.getKey());
                }
            }
            if (missing.isEmpty()) {
                return 0;
            }
            if (System.currentTimeMillis() >= deadline) {
                break;
            }
            Thread.sleep(200);
        }
        Peer.log("ClusterAdmin: topics %s not routed to all of %s within %d ms", missing, brokers.keySet(),
            timeoutMs);
        return 1;
    }

    private static int auth(DefaultMQAdminExt admin, String cluster, List<String> specs) throws Exception {
        List<List<String>> users = new ArrayList<>();
        List<List<String>> acls = new ArrayList<>();
        for (int i = 0; i < specs.size();) {
            int n = specs.get(i).equals("user") ? 3 : specs.get(i).equals("acl") ? 4 : 0;
            if (n == 0 || i + n > specs.size()) {
                throw new IllegalArgumentException("auth: user NAME PASSWORD or acl NAME RESOURCES ACTIONS expected at "
                    + specs.subList(i, specs.size()));
            }
            (n == 3 ? users : acls).add(specs.subList(i + 1, i + n));
            i += n;
        }
        Map<String, String> brokers = masters(admin, cluster);
        if (brokers.isEmpty()) {
            Peer.log("ClusterAdmin: no broker registered in cluster %s", cluster);
            return 1;
        }
        for (String addr : brokers.values()) {
            // users first: an ACL names an existing user
            for (List<String> u : users) {
                call5(admin, "createUser", new Class<?>[] {String.class, String.class, String.class, String.class},
                    addr, u.get(0), u.get(1), "Normal");
            }
            for (List<String> a : acls) {
                call5(admin, "createAcl",
                    new Class<?>[] {String.class, String.class, List.class, List.class, List.class, String.class},
                    addr, "User:" + a.get(0), List.of(a.get(1).split(",")), List.of(a.get(2).split(",")), null,
                    "Allow");
            }
        }
        return 0;
    }

    // createUser/createAcl exist only in the 5.x admin API: called by reflection so that this source also
    // compiles against the 4.9.x client (RMQ_VERSION=4.9.7), where `auth` then fails by name.
    private static void call5(DefaultMQAdminExt admin, String method, Class<?>[] types, Object... args)
        throws Exception {
        java.lang.reflect.Method m;
        try {
            m = admin.getClass().getMethod(method, types);
        } catch (NoSuchMethodException e) {
            throw new UnsupportedOperationException("ClusterAdmin auth: " + method + " needs a 5.x admin client", e);
        }
        try {
            m.invoke(admin, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
        }
    }

    private static boolean routed(DefaultMQAdminExt admin, String topic, int queues, Set<String> brokers) {
        try {
            var route = admin.examineTopicRouteInfo(topic);
            // broker name -> {read queues, write queues}
            Map<String, int[]> byBroker = new HashMap<>();
            for (var qd : route.getQueueDatas()) {
                byBroker.put(qd.getBrokerName(), new int[] {qd.getReadQueueNums(), qd.getWriteQueueNums()});
            }
            for (String b : brokers) {
                int[] rw = byBroker.get(b);
                if (rw == null || rw[0] != queues || rw[1] != queues) {
                    return false;
                }
            }
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}
