// The recipes docs/frameworks/go.md quotes: a Go application on pgx v4,
// through its own API (pgxpool) and through database/sql (pgx's stdlib
// driver). main.go runs them and checks what they return.
package main

import (
	"context"
	"database/sql"
	_ "embed"
	"time"

	"github.com/jackc/pgtype"
	"github.com/jackc/pgx/v4"
	"github.com/jackc/pgx/v4/pgxpool"
	_ "github.com/jackc/pgx/v4/stdlib" // database/sql's driver "pgx"
)

// Order is a row of orders, whose key is a bigint the database makes. The
// ",string" tag writes the ID as a JSON string: IDs are above 2^53, where a
// JSON number read as a double (JavaScript's Number, a float64) loses digits.
type Order struct {
	ID   int64  `json:"id,string"`
	Note string `json:"note"`
}

// Ticket is a row of tickets, whose key has the snowflake type. Go holds it
// as an int64 too.
type Ticket struct {
	ID   int64  `json:"id,string"`
	Note string `json:"note"`
}

//go:embed schema.sql
var schema string

// migrate runs the migration. Exec without arguments uses the simple
// protocol, which takes several statements at once.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := pool.Exec(ctx, schema)
	return err
}

// registerSnowflake makes pgx read the snowflake type as an int8 on this
// connection: Scan(&int64), and int64 in rows.Values(). The type's OID
// differs from one database to the next, so it is looked up on each new
// connection.
func registerSnowflake(ctx context.Context, conn *pgx.Conn) error {
	var oid uint32
	if err := conn.QueryRow(ctx, "SELECT 'snowflake'::regtype::oid").Scan(&oid); err != nil {
		return err
	}
	conn.ConnInfo().RegisterDataType(pgtype.DataType{Value: &pgtype.Int8{}, Name: "snowflake", OID: oid})
	return nil
}

func connectPool(ctx context.Context, connString string) (*pgxpool.Pool, error) {
	config, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, err
	}
	config.AfterConnect = registerSnowflake
	return pgxpool.ConnectConfig(ctx, config)
}

// openDB needs no registration: database/sql converts the snowflake type's
// text into the int64 that Scan is given.
func openDB(connString string) (*sql.DB, error) {
	return sql.Open("pgx", connString)
}

func createOrder(ctx context.Context, pool *pgxpool.Pool, note string) (Order, error) {
	order := Order{Note: note}
	err := pool.QueryRow(ctx, "INSERT INTO orders (note) VALUES ($1) RETURNING id", note).Scan(&order.ID)
	return order, err
}

func createOrderSQL(ctx context.Context, db *sql.DB, note string) (Order, error) {
	order := Order{Note: note}
	err := db.QueryRowContext(ctx, "INSERT INTO orders (note) VALUES ($1) RETURNING id", note).Scan(&order.ID)
	return order, err
}

// createTicket reads the snowflake key into an int64: the pool's connections
// ran registerSnowflake.
func createTicket(ctx context.Context, pool *pgxpool.Pool, note string) (Ticket, error) {
	ticket := Ticket{Note: note}
	err := pool.QueryRow(ctx, "INSERT INTO tickets (note) VALUES ($1) RETURNING id", note).Scan(&ticket.ID)
	return ticket, err
}

// createTicketCast works on a connection without registerSnowflake: the
// cast makes the result an int8, which pgx knows.
func createTicketCast(ctx context.Context, conn *pgx.Conn, note string) (Ticket, error) {
	ticket := Ticket{Note: note}
	err := conn.QueryRow(ctx, "INSERT INTO tickets (note) VALUES ($1) RETURNING id::bigint", note).Scan(&ticket.ID)
	return ticket, err
}

func createTicketSQL(ctx context.Context, db *sql.DB, note string) (Ticket, error) {
	ticket := Ticket{Note: note}
	err := db.QueryRowContext(ctx, "INSERT INTO tickets (note) VALUES ($1) RETURNING id", note).Scan(&ticket.ID)
	return ticket, err
}

// Rows minted in [from, to): a bigint key compares with the boundary IDs of
// the times, a snowflake key with the times themselves, typed timestamptz
// (an untyped $1 would be taken for a snowflake).
const (
	ordersMintedBetween = `SELECT id FROM orders
		WHERE id >= snowflake_first_at_or_after($1) AND id < snowflake_first_at_or_after($2)
		ORDER BY id`
	ticketsMintedBetween = `SELECT id FROM tickets
		WHERE id >= $1::timestamptz AND id < $2::timestamptz
		ORDER BY id`
	ordersMintedSince  = "SELECT id FROM orders WHERE id >= snowflake_first_at_or_after($1) ORDER BY id"
	ticketsMintedSince = "SELECT id FROM tickets WHERE id >= $1::timestamptz ORDER BY id"
)

// queryIDs runs one of the queries above with time.Time arguments.
func queryIDs(ctx context.Context, pool *pgxpool.Pool, query string, times ...interface{}) ([]int64, error) {
	rows, err := pool.Query(ctx, query, times...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func queryIDsSQL(ctx context.Context, db *sql.DB, query string, times ...interface{}) ([]int64, error) {
	rows, err := db.QueryContext(ctx, query, times...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// serverNow is the server's time, cut to the millisecond: an ID carries only
// the millisecond it was minted in, so a time with microseconds would leave
// out the IDs minted in the rest of its millisecond.
func serverNow(ctx context.Context, pool *pgxpool.Pool) (time.Time, error) {
	var now time.Time
	err := pool.QueryRow(ctx, "SELECT date_trunc('milliseconds', now())").Scan(&now)
	return now, err
}
