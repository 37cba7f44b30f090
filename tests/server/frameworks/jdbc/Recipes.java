// The plain JDBC recipes (docs/frameworks/jdbc.md): pgjdbc 42.5 against SF_DB,
// a database with the extension and nothing else, over TCP on 127.0.0.1.
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

public class Recipes {
    static void check(String what, boolean holds) {
        if (!holds) {
            System.out.println("FAIL: " + what);
            System.exit(1);
        }
        System.out.println("ok: " + what);
    }

    // The key the database generated, read back with the insert.
    static long insertOrder(Connection conn, String note) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO orders (note) VALUES (?)", new String[] {"id"})) {
            ps.setString(1, note);
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                keys.next();
                return keys.getLong("id");
            }
        }
    }

    // The same with RETURN_GENERATED_KEYS; a snowflake key reads with getLong
    // as a bigint does.
    static long insertEvent(Connection conn, String note) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO events (note) VALUES (?)",
                                                          Statement.RETURN_GENERATED_KEYS)) {
            ps.setString(1, note);
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                keys.next();
                return keys.getLong("id");
            }
        }
    }

    // A bigint key: compare with the boundary functions, the times typed timestamptz.
    static List<Long> ordersMinted(Connection conn, OffsetDateTime from, OffsetDateTime to) throws SQLException {
        String sql = "SELECT id FROM orders WHERE id >= snowflake_first_at_or_after(?)"
                     + " AND id < snowflake_first_at_or_after(?) ORDER BY id";
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            ps.setObject(1, from); // an OffsetDateTime is sent as a timestamptz
            ps.setObject(2, to);
            return ids(ps);
        }
    }

    // A snowflake key compares with a timestamptz parameter directly.
    static List<Long> eventsMinted(Connection conn, OffsetDateTime from, OffsetDateTime to) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT id FROM events WHERE id >= ? AND id < ? ORDER BY id")) {
            ps.setObject(1, from);
            ps.setObject(2, to);
            return ids(ps);
        }
    }

    static List<Long> ids(PreparedStatement ps) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                ids.add(rs.getLong("id"));
            }
        }
        return ids;
    }

    // JSON written by the application: the id as a string, every digit kept
    // (JavaScript's JSON.parse rounds a number above 2^53).
    static String eventJson(long id, String note) {
        return "{\"id\":\"" + Long.toString(id) + "\",\"note\":" + jsonString(note) + "}";
    }

    static String jsonString(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    // What the database stored, read by a query of its own, as text.
    static List<String> stored(Connection conn, String table, String note) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (PreparedStatement ps = conn.prepareStatement("SELECT id::text FROM " + table + " WHERE note = ?")) {
            ps.setString(1, note);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getString(1));
                }
            }
        }
        return ids;
    }

    static List<Long> composeRows(Connection conn, String table, OffsetDateTime t0) throws SQLException {
        List<Long> ids = new ArrayList<>();
        String sql = "INSERT INTO " + table + " (id, note) VALUES (snowflake_compose(?, 1, 0), ?) RETURNING id";
        for (int minute = 0; minute <= 5; minute++) {
            try (PreparedStatement ps = conn.prepareStatement(sql)) {
                ps.setObject(1, t0.plusMinutes(minute));
                ps.setString(2, "composed " + minute);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    ids.add(rs.getLong(1));
                }
            }
        }
        return ids;
    }

    // An exception outside a check: its trace, then a FAIL line last (the suite shows the last line).
    public static void main(String[] args) {
        try {
            run();
        } catch (Exception e) {
            e.printStackTrace();
            System.out.println("FAIL: " + e);
            System.exit(1);
        }
    }

    static void run() throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:" + System.getenv("SF_PORT") + "/" + System.getenv("SF_DB");
        try (Connection conn = DriverManager.getConnection(url, "postgres", "");
             Connection other = DriverManager.getConnection(url, "postgres", "")) {
            try (Statement st = conn.createStatement()) {
                st.execute(Files.readString(Path.of("schema.sql")));
            }

            // 1. The bigint key.
            long order = insertOrder(conn, "first order");
            check("getGeneratedKeys returns the stored bigint key (" + order + ")",
                  stored(other, "orders", "first order").equals(List.of(Long.toString(order))));
            check("the key is above 2^53", order > (1L << 53));

            // 2. The snowflake key, read as a long.
            long event = insertEvent(conn, "first event");
            check("getGeneratedKeys with RETURN_GENERATED_KEYS returns the stored snowflake key (" + event + ")",
                  stored(other, "events", "first event").equals(List.of(Long.toString(event))));
            try (PreparedStatement ps = conn.prepareStatement("SELECT id, note FROM events WHERE id = ?")) {
                ps.setLong(1, event);
                try (ResultSet rs = ps.executeQuery()) {
                    check("setLong finds the snowflake key, getLong reads it",
                          rs.next() && rs.getLong("id") == event && rs.getString("note").equals("first event"));
                    Object plain = rs.getObject("id");
                    check("trap: getObject on the snowflake key gives a " + plain.getClass().getName()
                              + ", not a Long",
                          plain instanceof org.postgresql.util.PGobject
                              && ((org.postgresql.util.PGobject) plain).getValue().equals(Long.toString(event)));
                    String refused = null;
                    try {
                        rs.getObject("id", Long.class);
                    } catch (SQLException e) {
                        refused = e.getMessage();
                    }
                    check("trap: getObject(\"id\", Long.class) on the snowflake key is refused: " + refused,
                          refused != null && refused.contains("conversion to class java.lang.Long from snowflake"));
                }
            }

            // 3. Time filters: rows composed at fixed past times, one a minute from t0 ...
            OffsetDateTime t0 = OffsetDateTime.of(2025, 1, 1, 12, 0, 0, 0, ZoneOffset.UTC);
            List<Long> composedOrders = composeRows(conn, "orders", t0);
            List<Long> composedEvents = composeRows(conn, "events", t0);
            // ... and rows minted now, after a server time read to the millisecond an ID carries.
            OffsetDateTime since;
            try (Statement st = conn.createStatement();
                 ResultSet rs = st.executeQuery("SELECT date_trunc('milliseconds', clock_timestamp())")) {
                rs.next();
                since = rs.getObject(1, OffsetDateTime.class);
            }
            // Six each: past pgjdbc's prepareThreshold (5), so server-side prepared statements run too.
            List<Long> mintedOrders = new ArrayList<>();
            List<Long> mintedEvents = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                mintedOrders.add(insertOrder(conn, "minted " + i));
                mintedEvents.add(insertEvent(conn, "minted " + i));
            }
            OffsetDateTime far = OffsetDateTime.of(9999, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
            check("orders in [t0+1min, t0+4min) are exactly the rows composed at minutes 1, 2 and 3",
                  ordersMinted(conn, t0.plusMinutes(1), t0.plusMinutes(4)).equals(composedOrders.subList(1, 4)));
            check("orders minted since the server time read before the inserts are exactly those",
                  ordersMinted(conn, since, far).equals(mintedOrders));
            check("events in [t0+1min, t0+4min) are exactly the rows composed at minutes 1, 2 and 3",
                  eventsMinted(conn, t0.plusMinutes(1), t0.plusMinutes(4)).equals(composedEvents.subList(1, 4)));
            check("events minted since the server time read before the inserts are exactly those",
                  eventsMinted(conn, since, far).equals(mintedEvents));

            // Trap: setTimestamp sends a parameter of no type, which the
            // server takes as the other side's type, snowflake, and refuses.
            String refused = null;
            try (PreparedStatement ps = conn.prepareStatement("SELECT id FROM events WHERE id >= ?")) {
                ps.setTimestamp(1, Timestamp.from(t0.toInstant()));
                ps.executeQuery().close();
            } catch (SQLException e) {
                refused = e.getSQLState() + " " + e.getMessage().lines().findFirst().orElse("");
            }
            check("trap: a setTimestamp time against a snowflake key fails: " + refused,
                  refused != null && refused.startsWith("22P02 ")
                      && refused.contains("invalid input syntax for type snowflake"));

            // 4. JSON.
            String json = eventJson(event, "first \"event\"");
            String storedId = stored(other, "events", "first event").get(0);
            check("the JSON carries the snowflake id as a string, every digit: " + json,
                  json.startsWith("{\"id\":\"" + storedId + "\",") && event > (1L << 53));
        }
    }
}
