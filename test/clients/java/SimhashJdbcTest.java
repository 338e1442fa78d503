// JDBC (PostgreSQL driver, pgjdbc) against the simhash extension, as a Java
// application uses it: a PreparedStatement radius query with the fingerprint
// bound by setString and k by setInt, the distance read with getInt and
// checked against Long.bitCount(a ^ b); fingerprints inserted with setLong
// through bigint and with setString; simhash read with getString and
// getObject (PGobject "simhash"); the GIN index used once pgjdbc has switched
// to a server-side prepared statement (prepareThreshold), custom and generic
// plans.  Connects with the PG* environment variables (PGHOST, PGPORT,
// PGUSER, PGPASSWORD, PGDATABASE); creates and drops its own database.
// Prints "ok"/"FAIL" lines and "N passed, N failed"; exit status 1 on failure.
//
//   javac -cp /usr/share/java/postgresql.jar SimhashJdbcTest.java
//   java -cp /usr/share/java/postgresql.jar:. SimhashJdbcTest
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.postgresql.util.PGobject;

public class SimhashJdbcTest {
    static final String DB = "simhash_jdbc_test";
    static final String RADIUS =
        "SELECT id, fp <-> ?::simhash AS d FROM docs WHERE fp <-> ?::simhash <= ? ORDER BY id";
    static int passed, failed;

    static void check(String name, boolean ok, Object detail) {
        if (ok) {
            passed++;
            System.out.println("ok   " + name);
        } else {
            failed++;
            System.out.println("FAIL " + name + (detail == null ? "" : " " + detail));
        }
    }

    static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isEmpty() ? dflt : v;
    }

    static Connection connect(String db, Properties extra) throws SQLException {
        String host = env("PGHOST", "localhost");
        // JDBC speaks TCP only: a socket directory in PGHOST means this machine
        if (host.startsWith("/")) host = "localhost";
        String url = "jdbc:postgresql://" + host + ":" + env("PGPORT", "5432") + "/" + db;
        Properties p = new Properties();
        p.setProperty("user", env("PGUSER", System.getProperty("user.name")));
        String pw = System.getenv("PGPASSWORD");
        if (pw != null) p.setProperty("password", pw);
        p.putAll(extra);
        return DriverManager.getConnection(url, p);
    }

    static String hex(long v) {
        return String.format("%016x", v);
    }

    static long flip(long v, int... bits) {
        for (int b : bits) v ^= 1L << b;
        return v;
    }

    // The plans auto_explain sent as NOTICEs, now SQLWarnings on the statement.
    static List<String> plans(Statement st) throws SQLException {
        List<String> out = new ArrayList<>();
        for (SQLWarning w = st.getWarnings(); w != null; w = w.getNextWarning())
            if (w.getMessage().contains("plan:")) out.add(w.getMessage());
        return out;
    }

    static boolean usesIndex(String plan) {
        return plan.contains("Index Scan on docs_fp_gin") && plan.contains("simhash_ball");
    }

    // id -> distance for the radius query, as the server answers it
    static Map<Long, Integer> radius(PreparedStatement ps, String q, int k) throws SQLException {
        ps.setString(1, q);
        ps.setString(2, q);
        ps.setInt(3, k);
        Map<Long, Integer> got = new LinkedHashMap<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) got.put(rs.getLong("id"), rs.getInt("d"));
        }
        return got;
    }

    public static void main(String[] args) throws Exception {
        String adminDb = env("PGDATABASE", "postgres");
        try (Connection admin = connect(adminDb, new Properties()); Statement a = admin.createStatement()) {
            a.execute("DROP DATABASE IF EXISTS " + DB);
            a.execute("CREATE DATABASE " + DB);
            try {
                // prepareThreshold=5 is pgjdbc's default: the fifth execution of a
                // PreparedStatement and later ones use a named server-side statement
                Properties props = new Properties();
                props.setProperty("prepareThreshold", "5");
                try (Connection c = connect(DB, props)) {
                    run(c);
                }
            } catch (Exception e) {
                check("test ran to the end", false, e);
                e.printStackTrace(System.out);
            } finally {
                a.execute("DROP DATABASE IF EXISTS " + DB);
            }
        }
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    static void run(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE EXTENSION simhash");
            st.execute("CREATE TABLE docs (id bigint PRIMARY KEY, fp simhash)");
            st.execute("INSERT INTO docs SELECT i, hashint8extended(i, 11)::simhash FROM generate_series(1, 20000) i");
            // a planted cluster from SQL: row 1 with one of bits 0..5 flipped
            st.execute("INSERT INTO docs SELECT 100000 + b, (hashint8extended(1, 11) # (1::bigint << b))::simhash"
                + " FROM generate_series(0, 5) b");
            st.execute("CREATE INDEX docs_fp_gin ON docs USING gin (fp simhash_gin_ops)");   // radii above 4: not the default class
        }
        long center;
        String centerHex;
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT fp, fp::bigint FROM docs WHERE id = 1")) {
            rs.next();
            centerHex = rs.getString(1);
            center = rs.getLong(2);
        }
        check("getString gives the 16-digit hex text, the same 64 bits as getLong of fp::bigint",
            centerHex.equals(hex(center)), centerHex + " vs " + hex(center));

        // Insert with setLong through bigint (negative longs: fingerprints >= 2^63)
        // and with setString (hex, upper case accepted)
        Map<Long, Long> inserted = new TreeMap<>();
        try (PreparedStatement ins = c.prepareStatement("INSERT INTO docs (id, fp) VALUES (?, ?::bigint::simhash)")) {
            long[][] rows = {
                {200001, flip(center, 63)}, {200002, flip(center, 63, 62)},
                {200003, flip(center, 63, 0, 33)}, {200004, flip(center, 5, 6)}, {200005, -1L}};
            for (long[] r : rows) {
                ins.setLong(1, r[0]);
                ins.setLong(2, r[1]);
                ins.executeUpdate();
                inserted.put(r[0], r[1]);
            }
        }
        try (PreparedStatement ins = c.prepareStatement("INSERT INTO docs (id, fp) VALUES (?, ?::simhash)")) {
            long[][] rows = {{300001, flip(center, 10, 20)}, {300002, flip(center, 30, 40, 50)}, {300003, center ^ 0xffffL}};
            for (long[] r : rows) {
                ins.setLong(1, r[0]);
                ins.setString(2, hex(r[1]).toUpperCase());
                ins.executeUpdate();
                inserted.put(r[0], r[1]);
            }
        }
        try (Statement st = c.createStatement()) {
            st.execute("ANALYZE docs");
        }

        // Read back: getString, getLong of the bigint cast, getObject
        boolean allSame = true;
        String detail = null;
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT id, fp, fp::bigint AS b FROM docs WHERE id > 200000 ORDER BY id")) {
            int n = 0;
            while (rs.next()) {
                n++;
                long want = inserted.get(rs.getLong("id"));
                if (!rs.getString("fp").equals(hex(want)) || rs.getLong("b") != want) {
                    allSame = false;
                    detail = rs.getLong("id") + ": " + rs.getString("fp") + " " + rs.getLong("b");
                }
            }
            if (n != inserted.size()) { allSame = false; detail = n + " rows"; }
        }
        check("setLong through ?::bigint::simhash and setString through ?::simhash store the intended bits", allSame, detail);
        try (PreparedStatement ps = c.prepareStatement("SELECT fp FROM docs WHERE id = ?")) {
            ps.setLong(1, 200005);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                Object o = rs.getObject(1);
                check("getObject gives a PGobject of type \"simhash\" holding the hex text",
                    o instanceof PGobject && "simhash".equals(((PGobject) o).getType())
                        && "ffffffffffffffff".equals(((PGobject) o).getValue()),
                    o == null ? "null" : o.getClass().getName() + " " + o);
                check("result column type name is simhash, JDBC type OTHER",
                    "simhash".equals(rs.getMetaData().getColumnTypeName(1))
                        && rs.getMetaData().getColumnType(1) == Types.OTHER,
                    rs.getMetaData().getColumnTypeName(1) + " " + rs.getMetaData().getColumnType(1));
            }
        }

        // Reference answers: every fingerprint, distances by Long.bitCount
        Map<Long, Long> all = new TreeMap<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT id, fp::bigint FROM docs")) {
            while (rs.next()) all.put(rs.getLong(1), rs.getLong(2));
        }

        try (PreparedStatement ps = c.prepareStatement(RADIUS)) {
            for (int k = 0; k <= 5; k++) {
                Map<Long, Integer> want = new LinkedHashMap<>();
                for (Map.Entry<Long, Long> e : all.entrySet()) {
                    int d = Long.bitCount(e.getValue() ^ center);
                    if (d <= k) want.put(e.getKey(), d);
                }
                Map<Long, Integer> got = radius(ps, centerHex, k);
                check("radius k=" + k + ": " + got.size() + " rows, distances as Long.bitCount(a ^ b)",
                    got.equals(want), got + " want " + want);
            }
            try (ResultSet rs = ps.executeQuery()) {
                check("distance column is int4 (JDBC INTEGER), read with getInt",
                    rs.getMetaData().getColumnType(2) == Types.INTEGER
                        && "int4".equals(rs.getMetaData().getColumnTypeName(2)),
                    rs.getMetaData().getColumnTypeName(2));
            }
        }

        // EXPLAIN through a PreparedStatement, one-shot and (from the fifth
        // execution on) server-prepared
        try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + RADIUS)) {
            boolean allIndexed = true;
            String bad = null;
            for (int i = 0; i < 7; i++) {
                ps.setString(1, centerHex);
                ps.setString(2, centerHex);
                ps.setInt(3, 3);
                StringBuilder plan = new StringBuilder();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) plan.append(rs.getString(1)).append('\n');
                }
                if (!usesIndex(plan.toString())) { allIndexed = false; bad = "\n" + plan; }
            }
            check("EXPLAIN of the radius query uses the GIN index, 7 executions", allIndexed, bad);
        }

        // The plans the radius query itself ran (auto_explain, as NOTICEs):
        // pgjdbc switches to a named server-side statement at the fifth
        // execution; the server's plan cache makes five custom plans, then
        // may choose a generic one.  And with plan_cache_mode = force_generic_plan.
        try (Statement st = c.createStatement()) {
            st.execute("LOAD 'auto_explain'");
            st.execute("SET auto_explain.log_min_duration = 0");
            st.execute("SET auto_explain.log_level = notice");
        }
        for (String mode : new String[] {"auto", "force_generic_plan"}) {
            try (Statement st = c.createStatement()) {
                st.execute("SET plan_cache_mode = " + mode);
            }
            // a text of its own, so that pgjdbc's statement cache does not hand
            // back the server statement of the checks above
            String sql = "/* " + mode + " */ " + RADIUS;
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                int executions = 12, indexed = 0;
                boolean right = true;
                String bad = null, last = "";
                for (int i = 0; i < executions; i++) {
                    int k = 2 + i % 3;
                    Map<Long, Integer> got = radius(ps, centerHex, k);
                    int n = 0;
                    for (long v : all.values()) if (Long.bitCount(v ^ center) <= k) n++;
                    if (got.size() != n) right = false;
                    List<String> p = plans(ps);
                    if (p.size() == 1) last = p.get(0);
                    if (p.size() == 1 && usesIndex(p.get(0))) indexed++;
                    else bad = "\nexecution " + (i + 1) + ": " + p;
                }
                String label = "plan_cache_mode " + mode + ": ";
                check(label + executions + " executions, right row counts", right, null);
                check(label + "every execution used the GIN index (" + indexed + "/" + executions + ")",
                    indexed == executions, bad);
                if (mode.equals("force_generic_plan"))
                    check(label + "the generic plan's index condition holds the parameters",
                        last.contains("Index Cond: (fp <@ simhash_ball(($2)::simhash, $3))"), "\n" + last);
                try (Statement st = c.createStatement();
                     ResultSet rs = st.executeQuery("SELECT name, generic_plans, custom_plans FROM pg_prepared_statements"
                         + " WHERE NOT from_sql AND statement LIKE '/* " + mode + " */%'")) {
                    boolean found = rs.next();
                    long generic = found ? rs.getLong(2) : -1, custom = found ? rs.getLong(3) : -1;
                    // executions 1-4 are one-shot (unnamed), 5-12 a named statement
                    check(label + "pgjdbc switched to server statement " + (found ? rs.getString(1) : "?")
                            + " (generic plans " + generic + ", custom plans " + custom + ")",
                        found && generic + custom == executions - 4 && (mode.equals("auto") || custom == 0),
                        null);
                }
            }
        }
        try (Statement st = c.createStatement()) {
            st.execute("RESET plan_cache_mode");
            st.execute("RESET auto_explain.log_min_duration");
        }
    }
}
