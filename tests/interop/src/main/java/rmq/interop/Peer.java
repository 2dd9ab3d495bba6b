package rmq.interop;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.rocketmq.acl.common.AclUtils;
import org.apache.rocketmq.remoting.RPCHook;

/**
 * What RefProducer and RefConsumer share: stdout reserved for JSON lines, quiet client logging, a small JSON
 * writer, SHA-256 and command-line parsing.
 */
final class Peer {
    private static PrintStream json;

    private Peer() {
    }

    /**
     * Must run before any RocketMQ class is touched: the client's logging is configured on first use, and
     * anything a library prints to System.out must not end up between the JSON lines.
     */
    static void init(String name) {
        json = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        setDefault("rmq.interop.name", name);
        setDefault("rmq.logback.configurationFile", "rmq.interop.logback.xml");
        setDefault("logback.statusListenerClass",
            "org.apache.rocketmq.logging.ch.qos.logback.core.status.NopStatusListener");
    }

    /**
     * The hook that signs every request with the credentials of FILE (mqadmin's tools.yml format: accessKey,
     * secretKey) when tools/rocketmq.sh passes -Drmq.acl.tools=FILE (a cluster started with --acl); null
     * otherwise, so that a plain cluster sees exactly the unsigned requests it always saw.
     */
    static RPCHook aclHook() {
        String file = System.getProperty("rmq.acl.tools");
        if (file == null || file.isEmpty()) {
            return null;
        }
        RPCHook hook = AclUtils.getAclRPCHook(file);
        if (hook == null) {
            throw new IllegalStateException("no accessKey/secretKey in " + file);
        }
        return hook;
    }

    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /** Prints one JSON object per line; lines from several threads never interleave. */
    static synchronized void emit(Map<String, Object> obj) {
        StringBuilder sb = new StringBuilder(256);
        write(sb, obj);
        json.print(sb);
        json.print('\n');
        json.flush();
    }

    static void log(String fmt, Object... args) {
        System.err.println(String.format(fmt, args));
        System.err.flush();
    }

    static Map<String, Object> obj() {
        return new TreeMap<>();
    }

    @SuppressWarnings("unchecked")
    private static void write(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String s) {
            quote(sb, s);
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else if (v instanceof Map<?, ?> m) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : new TreeMap<>((Map<String, Object>) m).entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                quote(sb, e.getKey());
                sb.append(':');
                write(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof List<?> l) {
            sb.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                write(sb, l.get(i));
            }
            sb.append(']');
        } else {
            quote(sb, v.toString());
        }
    }

    private static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    static String sha256(byte[] data) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(data);
            StringBuilder sb = new StringBuilder(64);
            for (byte b : d) {
                sb.append(String.format("%02x", b & 0xff));
            }
            return sb.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Positional arguments plus --name value options (repeatable ones collected in order). */
    static final class Args {
        final List<String> positional = new ArrayList<>();
        final Map<String, List<String>> options = new TreeMap<>();

        Args(String[] argv, List<String> flags) {
            for (int i = 0; i < argv.length; i++) {
                String a = argv[i];
                if (a.startsWith("--")) {
                    String key = a.substring(2);
                    String value;
                    if (flags.contains(key)) {
                        value = "true";
                    } else if (i + 1 < argv.length) {
                        value = argv[++i];
                    } else {
                        throw new IllegalArgumentException("option " + a + " needs a value");
                    }
                    options.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
                } else {
                    positional.add(a);
                }
            }
        }

        String get(String key, String dflt) {
            List<String> l = options.get(key);
            return l == null ? dflt : l.get(l.size() - 1);
        }

        int getInt(String key, int dflt) {
            String v = get(key, null);
            return v == null ? dflt : Integer.parseInt(v);
        }

        long getLong(String key, long dflt) {
            String v = get(key, null);
            return v == null ? dflt : Long.parseLong(v);
        }

        boolean has(String key) {
            return options.containsKey(key);
        }

        List<String> all(String key) {
            return options.getOrDefault(key, List.of());
        }

        void allowOnly(List<String> known) {
            for (String k : options.keySet()) {
                if (!known.contains(k)) {
                    throw new IllegalArgumentException("unknown option --" + k);
                }
            }
        }
    }
}
