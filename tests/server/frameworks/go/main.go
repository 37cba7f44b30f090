// Runs the recipes of recipes.go against the database the harness made
// (tests/server/frameworks.sh: SF_SOCKDIR, SF_PORT, SF_DB) and checks what
// they do. Prints "ok: ..." per assertion; exits 1 at the first that fails.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v4"
	"github.com/jackc/pgx/v4/pgxpool"
	"github.com/jackc/pgx/v4/stdlib"
)

const twoTo53 = int64(1) << 53

func fail(format string, args ...interface{}) {
	fmt.Printf("FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func ok(what string, args ...interface{}) {
	fmt.Printf("ok: "+what+"\n", args...)
}

func must(err error, what string) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func expectEqual(what string, want, got interface{}) {
	if !reflect.DeepEqual(want, got) {
		fail("%s: expected %v, got %v", what, want, got)
	}
	ok("%s (%v)", what, got)
}

// expectError: err must be set and contain every one of parts.
func expectError(what string, err error, parts ...string) {
	if err == nil {
		fail("%s: expected an error, got none", what)
	}
	for _, part := range parts {
		if !strings.Contains(err.Error(), part) {
			fail("%s: expected an error with %q, got: %v", what, part, err)
		}
	}
	ok("%s: %v", what, err)
}

func typeName(v interface{}) string { return fmt.Sprintf("%T", v) }

// storedID reads a row's key back by its note, in a query of its own.
func storedID(ctx context.Context, pool *pgxpool.Pool, table, note string) int64 {
	var id int64
	must(pool.QueryRow(ctx, "SELECT id::bigint FROM "+table+" WHERE note = $1", note).Scan(&id),
		"read "+table+" back")
	return id
}

func main() {
	ctx := context.Background()
	connString := fmt.Sprintf("host=%s port=%s user=postgres dbname=%s",
		os.Getenv("SF_SOCKDIR"), os.Getenv("SF_PORT"), os.Getenv("SF_DB"))

	pool, err := connectPool(ctx, connString)
	must(err, "connect the pool")
	defer pool.Close()
	db, err := openDB(connString)
	must(err, "open database/sql")
	defer db.Close()
	// A connection without registerSnowflake, as pgx.Connect gives it.
	plain, err := pgx.Connect(ctx, connString)
	must(err, "connect without registration")
	defer plain.Close(ctx)

	must(migrate(ctx, pool), "migrate")
	ok("the migration ran (schema.sql)")

	// Rows of known times, composed for worker id 1 (the server mints as 7)
	// with an odd sequence: such an ID is not a float64's exactly.
	t1 := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	t2 := t1.Add(time.Hour)
	composedAt := []time.Time{t1.Add(-time.Millisecond), t1, t1.Add(30 * time.Minute),
		t2.Add(-time.Millisecond), t2}
	var composed []int64
	for i, at := range composedAt {
		var id int64
		must(pool.QueryRow(ctx, "SELECT snowflake_compose($1, 1, 1)", at).Scan(&id), "compose")
		for _, table := range []string{"orders", "tickets"} {
			_, err := pool.Exec(ctx, "INSERT INTO "+table+" (id, note) VALUES ($1, $2)", id,
				fmt.Sprintf("composed %d", i))
			must(err, "insert a composed row")
		}
		composed = append(composed, id)
	}
	inWindow := composed[1:4]

	since, err := serverNow(ctx, pool)
	must(err, "read the server's time")

	// 1. The bigint key, read back after the insert.
	var orders, tickets []int64
	order, err := createOrder(ctx, pool, "pgx order")
	must(err, "createOrder")
	expectEqual("pgx: INSERT ... RETURNING id gives the stored bigint key", storedID(ctx, pool, "orders", order.Note), order.ID)
	orderSQL, err := createOrderSQL(ctx, db, "database/sql order")
	must(err, "createOrderSQL")
	expectEqual("database/sql: INSERT ... RETURNING id gives the stored bigint key",
		storedID(ctx, pool, "orders", orderSQL.Note), orderSQL.ID)
	orders = append(orders, order.ID, orderSQL.ID)
	if order.ID <= twoTo53 || orderSQL.ID <= twoTo53 {
		fail("the minted IDs %d, %d are not above 2^53", order.ID, orderSQL.ID)
	}
	ok("the minted IDs are above 2^53 (%d)", twoTo53)

	// Trap: database/sql's Result has no LastInsertId with pgx.
	result, err := db.ExecContext(ctx, "INSERT INTO orders (note) VALUES ('Exec, no RETURNING')")
	must(err, "insert with Exec")
	_, err = result.LastInsertId()
	expectError("trap: database/sql's LastInsertId", err, "LastInsertId is not supported by this driver")
	orders = append(orders, storedID(ctx, pool, "orders", "Exec, no RETURNING"))

	// 2. The snowflake key.
	var unregistered int64
	err = plain.QueryRow(ctx, "INSERT INTO tickets (note) VALUES ('no registration') RETURNING id").Scan(&unregistered)
	expectError("trap: pgx without registerSnowflake, Scan(&int64) of a snowflake", err,
		"unknown oid", "cannot be scanned into *int64")
	tickets = append(tickets, storedID(ctx, pool, "tickets", "no registration")) // minted all the same

	ticketCast, err := createTicketCast(ctx, plain, "pgx, cast")
	must(err, "createTicketCast")
	expectEqual("pgx without registration: RETURNING id::bigint gives the stored snowflake key",
		storedID(ctx, pool, "tickets", ticketCast.Note), ticketCast.ID)

	ticket, err := createTicket(ctx, pool, "pgx ticket")
	must(err, "createTicket")
	expectEqual("pgx with registerSnowflake (AfterConnect): RETURNING id gives the stored snowflake key",
		storedID(ctx, pool, "tickets", ticket.Note), ticket.ID)
	var value interface{}
	must(pool.QueryRow(ctx, "SELECT id FROM tickets WHERE note = 'pgx ticket'").Scan(&value), "scan into interface{}")
	expectEqual("pgx with registerSnowflake: a snowflake scanned into interface{} is an int64", "int64", typeName(value))
	expectEqual("... of the stored value", ticket.ID, value)
	var plainValue interface{}
	err = plain.QueryRow(ctx, "SELECT id FROM tickets WHERE note = 'pgx ticket'").Scan(&plainValue)
	expectError("trap: pgx without registration, Scan(&interface{}) of a snowflake", err,
		"unknown oid", "cannot be scanned into *interface {}")
	rows, err := plain.Query(ctx, "SELECT id FROM tickets WHERE note = 'pgx ticket'")
	must(err, "query without registration")
	for rows.Next() {
		values, err := rows.Values()
		must(err, "rows.Values()")
		plainValue = values[0]
	}
	must(rows.Err(), "rows without registration")
	expectEqual("trap: pgx without registration, rows.Values() gives a snowflake as a string",
		"string", typeName(plainValue))
	var plainText string
	must(plain.QueryRow(ctx, "SELECT id FROM tickets WHERE note = 'pgx ticket'").Scan(&plainText),
		"pgx without registration: Scan(&string)")
	expectEqual("pgx without registration: Scan(&string) of a snowflake gives its digits",
		strconv.FormatInt(ticket.ID, 10), plainText)
	var idText string
	err = pool.QueryRow(ctx, "SELECT id FROM tickets WHERE note = 'pgx ticket'").Scan(&idText)
	expectError("trap: with registerSnowflake, Scan(&string) of a snowflake fails", err,
		"cannot assign", "into *string")

	ticketSQL, err := createTicketSQL(ctx, db, "database/sql ticket")
	must(err, "createTicketSQL")
	expectEqual("database/sql: RETURNING id into an int64 gives the stored snowflake key",
		storedID(ctx, pool, "tickets", ticketSQL.Note), ticketSQL.ID)
	var sqlValue interface{}
	must(db.QueryRowContext(ctx, "SELECT id FROM tickets WHERE note = 'database/sql ticket'").Scan(&sqlValue),
		"database/sql: scan into interface{}")
	expectEqual("trap: database/sql, a snowflake scanned into interface{} is a string", "string", typeName(sqlValue))
	must(db.QueryRowContext(ctx, "SELECT id::bigint FROM tickets WHERE note = 'database/sql ticket'").Scan(&sqlValue),
		"database/sql: scan id::bigint into interface{}")
	expectEqual("database/sql: id::bigint scanned into interface{} is an int64", "int64", typeName(sqlValue))
	// pgx's stdlib asks for the types it does not list as text and hands them
	// to database/sql as strings: registerSnowflake does not change that.
	connConfig, err := pgx.ParseConfig(connString)
	must(err, "parse the connection string")
	registeredDB := stdlib.OpenDB(*connConfig, stdlib.OptionAfterConnect(registerSnowflake))
	defer registeredDB.Close()
	must(registeredDB.QueryRowContext(ctx, "SELECT id FROM tickets WHERE note = 'database/sql ticket'").Scan(&sqlValue),
		"database/sql with registerSnowflake: scan into interface{}")
	expectEqual("trap: database/sql with stdlib.OptionAfterConnect(registerSnowflake), a snowflake scanned into interface{} is still a string",
		"string", typeName(sqlValue))
	tickets = append(tickets, ticketCast.ID, ticket.ID, ticketSQL.ID)

	// int64 parameters compare with the snowflake key, through each way in.
	for name, query := range map[string]func(*string) error{
		"pgx without registration": func(note *string) error {
			return plain.QueryRow(ctx, "SELECT note FROM tickets WHERE id = $1", ticket.ID).Scan(note)
		},
		"pgx with registration": func(note *string) error {
			return pool.QueryRow(ctx, "SELECT note FROM tickets WHERE id = $1", ticket.ID).Scan(note)
		},
		"database/sql": func(note *string) error {
			return db.QueryRowContext(ctx, "SELECT note FROM tickets WHERE id = $1", ticket.ID).Scan(note)
		},
	} {
		var note string
		must(query(&note), name+": WHERE id = $1 with an int64")
		expectEqual(name+": WHERE id = $1 with an int64 finds the ticket", ticket.Note, note)
	}

	// 3. Time filters: [t1, t2) holds exactly the composed rows inside it, and
	// the window from the time read before the inserts holds exactly the rows
	// the application minted.
	for _, q := range []struct{ name, between, since string }{
		{"orders (bigint)", ordersMintedBetween, ordersMintedSince},
		{"tickets (snowflake)", ticketsMintedBetween, ticketsMintedSince},
	} {
		minted := orders
		if strings.HasPrefix(q.name, "tickets") {
			minted = tickets
		}
		ids, err := queryIDs(ctx, pool, q.between, t1, t2)
		must(err, "pgx: "+q.name+" minted between")
		expectEqual("pgx: "+q.name+" minted in [t1, t2) are the composed rows inside", inWindow, ids)
		ids, err = queryIDsSQL(ctx, db, q.between, t1, t2)
		must(err, "database/sql: "+q.name+" minted between")
		expectEqual("database/sql: "+q.name+" minted in [t1, t2) are the composed rows inside", inWindow, ids)
		ids, err = queryIDs(ctx, pool, q.since, since)
		must(err, "pgx: "+q.name+" minted since")
		expectEqual("pgx: "+q.name+" minted since the server's time read before the inserts are those inserted",
			minted, ids)
		ids, err = queryIDsSQL(ctx, db, q.since, since)
		must(err, "database/sql: "+q.name+" minted since")
		expectEqual("database/sql: "+q.name+" minted since the server's time read before the inserts are those inserted",
			minted, ids)
	}
	ids, err := queryIDs(ctx, pool, ticketsMintedSince, t1.Add(500*time.Microsecond))
	must(err, "tickets since t1 + 0.5 ms")
	if len(ids) == 0 || ids[0] != composed[2] {
		fail("tickets minted since t1 + 0.5 ms: expected the first to be the one of t1 + 30 min, got %v", ids)
	}
	ok("trap: a time with microseconds leaves out its millisecond's IDs: since t1 + 0.5 ms starts after t1's row")
	var any int64
	err = pool.QueryRow(ctx, "SELECT id FROM tickets WHERE id >= $1 LIMIT 1", t1).Scan(&any)
	expectError("trap: pgx, a time.Time compared with a snowflake key without ::timestamptz", err)
	err = db.QueryRowContext(ctx, "SELECT id FROM tickets WHERE id >= $1 LIMIT 1", t1).Scan(&any)
	expectError("trap: database/sql, a time.Time compared with a snowflake key without ::timestamptz", err)

	// 4. JSON the application writes.
	for _, v := range []interface{}{order, ticket} {
		id := reflect.ValueOf(v).FieldByName("ID").Int()
		text, err := json.Marshal(v)
		must(err, "json.Marshal")
		want := `"id":"` + strconv.FormatInt(id, 10) + `"`
		if !strings.Contains(string(text), want) {
			fail("the JSON of %T does not carry %s: %s", v, want, text)
		}
		ok("json.Marshal of a %T carries every digit of the stored ID as a string: %s", v, text)
		back := reflect.New(reflect.TypeOf(v))
		must(json.Unmarshal(text, back.Interface()), "json.Unmarshal")
		expectEqual(fmt.Sprintf("json.Unmarshal reads the %T back", v), v, back.Elem().Interface())
	}
	// Trap: without ",string" the ID is a JSON number, which a reader that
	// holds numbers as doubles (JavaScript's JSON.parse, Go's interface{})
	// rounds to another ID.
	type orderNumber struct {
		ID int64 `json:"id"`
	}
	text, err := json.Marshal(orderNumber{composed[2]})
	must(err, "json.Marshal without ,string")
	var read map[string]interface{}
	must(json.Unmarshal(text, &read), "json.Unmarshal into a map")
	if f, isFloat := read["id"].(float64); !isFloat || int64(f) == composed[2] {
		fail("trap: expected %s to read back as a float64 other than %d, got %T %v", text, composed[2], read["id"], read["id"])
	}
	ok("trap: without \",string\", %s reads back as %.0f (float64), another ID", text, read["id"])

	// JSON that PostgreSQL builds: the snowflake type's is a string, which the
	// same tag reads; a bigint's is a number, which it refuses.
	var fromDB []Ticket
	must(pool.QueryRow(ctx, "SELECT json_agg(t ORDER BY id) FROM tickets t WHERE note = 'pgx ticket'").Scan(&text),
		"json_agg of tickets")
	must(json.Unmarshal(text, &fromDB), "json.Unmarshal of json_agg(tickets)")
	expectEqual("json_agg of the snowflake key reads into []Ticket exactly", []Ticket{ticket}, fromDB)
	var ordersFromDB []Order
	must(pool.QueryRow(ctx, "SELECT json_agg(o ORDER BY id) FROM orders o WHERE note = 'pgx order'").Scan(&text),
		"json_agg of orders")
	expectError("trap: json_agg of a bigint key has JSON numbers, which \",string\" refuses",
		json.Unmarshal(text, &ordersFromDB), "invalid use of ,string struct tag")
}
