// The Hibernate recipes (docs/frameworks/jdbc.md): Hibernate 3.6 (Debian's
// libhibernate3-java, with libjavassist-java) over pgjdbc, against the tables
// of schema.sql, after Recipes ran in the same database.
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import javax.persistence.Column;
import javax.persistence.Entity;
import javax.persistence.GeneratedValue;
import javax.persistence.GenerationType;
import javax.persistence.Id;
import javax.persistence.ManyToOne;
import javax.persistence.Table;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.Transaction;
import org.hibernate.cfg.Configuration;

public class HibernateRecipes {
    static final String URL = "jdbc:postgresql://127.0.0.1:" + System.getenv("SF_PORT") + "/" + System.getenv("SF_DB");

    static Configuration configuration() {
        return new Configuration()
            .setProperty("hibernate.connection.url", URL)
            .setProperty("hibernate.connection.username", "postgres")
            .setProperty("hibernate.dialect", "org.hibernate.dialect.PostgreSQLDialect")
            // The key comes from the column's DEFAULT: read it with getGeneratedKeys,
            // not with PostgreSQLDialect's currval('orders_id_seq').
            .setProperty("hibernate.jdbc.use_get_generated_keys", "true")
            // The schema is schema.sql's: hbm2ddl writes another one (see the traps).
            .setProperty("hibernate.hbm2ddl.auto", "none")
            .addAnnotatedClass(Order.class)
            .addAnnotatedClass(Event.class);
    }

    // What hbm2ddl makes of a key declared with the default (a trap).
    @Entity
    @Table(name = "ddl_orders")
    public static class DdlOrder {
        @Id
        @GeneratedValue(strategy = GenerationType.IDENTITY)
        @Column(columnDefinition = "bigint DEFAULT snowflake_nextval()")
        public Long id;
    }

    @Entity
    @Table(name = "ddl_items")
    public static class DdlItem {
        @Id
        @GeneratedValue(strategy = GenerationType.IDENTITY)
        @Column(columnDefinition = "bigint DEFAULT snowflake_nextval()")
        public Long id;
        @ManyToOne public DdlOrder order;
    }

    static String stored(Connection conn, String table, String note) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT string_agg(id::text, ',') FROM " + table + " WHERE note = ?")) {
            ps.setString(1, note);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    static String columnDefault(Connection conn, String table, String column) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef JOIN pg_attribute"
                                                          + " ON attrelid = adrelid AND attnum = adnum"
                                                          + " WHERE adrelid = ?::regclass AND attname = ?")) {
            ps.setString(1, table);
            ps.setString(2, column);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    static String causes(Throwable e) {
        StringBuilder out = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            out.append(t.getMessage()).append(" / ");
        }
        return out.toString();
    }

    static List<Long> ids(List<?> rows) {
        List<Long> ids = new ArrayList<>();
        for (Object row : rows) {
            ids.add(row instanceof Order ? ((Order) row).id : ((Event) row).id);
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

    @SuppressWarnings("unchecked")
    static void run() throws Exception {
        try (Connection other = DriverManager.getConnection(URL, "postgres", "")) {
            SessionFactory factory = configuration().buildSessionFactory();
            Session session = factory.openSession();

            // 1. and 2. The keys, bigint and snowflake, read back by save.
            Transaction tx = session.beginTransaction();
            Order order = new Order();
            order.note = "hibernate order";
            session.save(order);
            Event event = new Event();
            event.note = "hibernate event";
            session.save(event);
            tx.commit();
            Recipes.check("Hibernate's save returns the stored bigint key (" + order.id + ")",
                          Long.toString(order.id).equals(stored(other, "orders", "hibernate order")));
            Recipes.check("Hibernate's save returns the stored snowflake key (" + event.id + "), a Long",
                          Long.toString(event.id).equals(stored(other, "events", "hibernate event")));
            session.clear();
            Event found = (Event) session.get(Event.class, event.id);
            Recipes.check("session.get finds the snowflake key", found != null && found.note.equals("hibernate event"));

            // 3. Time filters, on rows composed from a t0 of their own.
            OffsetDateTime t0 = OffsetDateTime.of(2025, 6, 1, 12, 0, 0, 0, ZoneOffset.UTC);
            List<Long> composedOrders;
            List<Long> composedEvents;
            try (Connection conn = DriverManager.getConnection(URL, "postgres", "")) {
                composedOrders = Recipes.composeRows(conn, "orders", t0);
                composedEvents = Recipes.composeRows(conn, "events", t0);
            }
            Date from = Date.from(t0.plusMinutes(1).toInstant());
            Date to = Date.from(t0.plusMinutes(4).toInstant());
            // A bigint key: HQL passes the boundary function through.
            List<Order> orders = session.createQuery("from Order where id >= snowflake_first_at_or_after(:from)"
                                                     + " and id < snowflake_first_at_or_after(:to) order by id")
                                     .setTimestamp("from", from)
                                     .setTimestamp("to", to)
                                     .list();
            // A snowflake key: SQL, the time cast to timestamptz (setTimestamp sends no type).
            List<Event> events = session.createSQLQuery("SELECT * FROM events WHERE id >= CAST(:from AS timestamptz)"
                                                        + " AND id < CAST(:to AS timestamptz) ORDER BY id")
                                     .addEntity(Event.class)
                                     .setTimestamp("from", from)
                                     .setTimestamp("to", to)
                                     .list();
            Recipes.check("HQL: orders in [t0+1min, t0+4min) are exactly the rows composed at minutes 1, 2 and 3",
                          ids(orders).equals(composedOrders.subList(1, 4)));
            Recipes.check("SQL: events in [t0+1min, t0+4min) are exactly the rows composed at minutes 1, 2 and 3",
                          ids(events).equals(composedEvents.subList(1, 4)));
            Date since = (Date) session.createSQLQuery("SELECT date_trunc('milliseconds', clock_timestamp())").uniqueResult();
            List<Long> mintedOrders = new ArrayList<>();
            List<Long> mintedEvents = new ArrayList<>();
            tx = session.beginTransaction();
            for (int i = 0; i < 3; i++) {
                Order o = new Order();
                o.note = "hibernate minted " + i;
                session.save(o);
                mintedOrders.add(o.id);
                Event e = new Event();
                e.note = "hibernate minted " + i;
                session.save(e);
                mintedEvents.add(e.id);
            }
            tx.commit();
            orders = session.createQuery("from Order where id >= snowflake_first_at_or_after(:since) order by id")
                         .setTimestamp("since", since)
                         .list();
            events = session.createSQLQuery("SELECT * FROM events WHERE id >= CAST(:since AS timestamptz) ORDER BY id")
                         .addEntity(Event.class)
                         .setTimestamp("since", since)
                         .list();
            Recipes.check("HQL: orders minted since the server time read before the saves are exactly those",
                          ids(orders).equals(mintedOrders));
            Recipes.check("SQL: events minted since the server time read before the saves are exactly those",
                          ids(events).equals(mintedEvents));

            // Trap: HQL compares the snowflake key with a time sent without a type.
            String refused = null;
            try {
                session.createQuery("from Event where id >= :since").setTimestamp("since", since).list();
            } catch (RuntimeException e) {
                refused = causes(e);
            }
            Recipes.check("trap: HQL's id >= :time on the snowflake key fails (invalid input syntax for type snowflake)",
                          refused != null && refused.contains("invalid input syntax for type snowflake"));
            session.close();
            factory.close();

            // Trap: without use_get_generated_keys, PostgreSQLDialect asks currval of a sequence there is not.
            factory = configuration().setProperty("hibernate.jdbc.use_get_generated_keys", "false").buildSessionFactory();
            session = factory.openSession();
            refused = null;
            tx = session.beginTransaction();
            try {
                Order o = new Order();
                o.note = "no generated keys";
                session.save(o);
            } catch (RuntimeException e) {
                refused = causes(e);
            }
            tx.rollback();
            session.close();
            factory.close();
            Recipes.check("trap: without use_get_generated_keys save fails: relation \"orders_id_seq\" does not exist",
                          refused != null && refused.contains("relation \"orders_id_seq\" does not exist"));

            // Trap: hbm2ddl.auto=validate refuses the snowflake column.
            refused = null;
            try {
                configuration().setProperty("hibernate.hbm2ddl.auto", "validate").buildSessionFactory().close();
            } catch (RuntimeException e) {
                refused = causes(e);
            }
            Recipes.check("trap: hbm2ddl validate refuses events.id (Found: snowflake, expected: int8)",
                          refused != null && refused.contains("Found: snowflake, expected: int8"));

            // Trap: hbm2ddl ignores the key's columnDefinition (bigserial) and copies it onto the foreign key.
            new Configuration()
                .setProperty("hibernate.connection.url", URL)
                .setProperty("hibernate.connection.username", "postgres")
                .setProperty("hibernate.dialect", "org.hibernate.dialect.PostgreSQLDialect")
                .setProperty("hibernate.hbm2ddl.auto", "create")
                .addAnnotatedClass(DdlOrder.class)
                .addAnnotatedClass(DdlItem.class)
                .buildSessionFactory()
                .close();
            String keyDefault = columnDefault(other, "ddl_orders", "id");
            String foreignKeyDefault = columnDefault(other, "ddl_items", "order_id");
            Recipes.check("trap: hbm2ddl writes the key as bigserial (" + keyDefault + ") and the foreign key with "
                              + foreignKeyDefault,
                          "nextval('ddl_orders_id_seq'::regclass)".equals(keyDefault)
                              && "snowflake_nextval()".equals(foreignKeyDefault));
        }
    }
}
