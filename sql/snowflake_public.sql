-- Public IDs (1.5): snowflake_public() and snowflake_from_public(), with a
-- key given and with snowflake_id.public_key, and every bad input. The
-- construction's own tests (SipHash's vectors, the permutation, the text
-- form's every rule): tests/unit/public_id_test.cpp.
-- Server: snowflake_id preloaded, snowflake_id.public_key not set.
CREATE EXTENSION IF NOT EXISTS snowflake_id;
-- The unit tests' key 00 01 .. 0f, and another.
\set k '''\\x000102030405060708090a0b0c0d0e0f''::bytea'
\set k2 '''\\xa0a1a2a3a4a5a6a7a8a9aaabacadaeaf''::bytea'

-- The unit tests' known answers, through SQL.
SELECT snowflake_public(912291816210986656, :k) AS public,
       snowflake_public(912291816210986656, :k, 'ord', true) AS with_prefix_and_check,
       snowflake_public(0, :k, check_symbol => true) AS zero,
       snowflake_public(9223372036854775807, :k, check_symbol => true) AS max;
-- And back, as a snowflake.
SELECT snowflake_from_public('3C3QF6M9GV7PB', :k) AS id,
       pg_typeof(snowflake_from_public('3C3QF6M9GV7PB', :k)) AS type,
       snowflake_from_public('ord_3C3QF6M9GV7PBD', :k, 'ord', true) AS with_prefix_and_check;
-- What Crockford says readers may type: lower case, I and L for 1, O for
-- 0, hyphens anywhere after the prefix.
SELECT t, snowflake_from_public(t, :k) AS id
FROM (VALUES ('3c3qf6m9gv7pb'), ('3C3-QF6M-9GV7-PB'), ('-3c3q-f6m9gv7pb-')) v(t);
SELECT t, snowflake_from_public(t, :k) = snowflake_from_public('1000000000010', :k) AS same_as_1000000000010
FROM (VALUES ('I00000000001O'), ('l0000000000io'), ('L-OOOOO-OOOOO-1o')) v(t);
SELECT snowflake_from_public('ord_3c3q-f6m9-gv7p-bd', :k, 'ord', true) AS typed;
-- A snowflake column passes by its implicit cast to bigint.
SELECT snowflake_public(912291816210986656::snowflake, :k) AS from_snowflake;
-- Round trips, and consecutive IDs give unrelated texts.
SELECT count(*) AS round_trips
FROM generate_series(912291816210986656, 912291816210986656 + 999) AS g(id)
WHERE snowflake_from_public(snowflake_public(id, :k, 'ord', true), :k, 'ord', true) = id;
SELECT count(DISTINCT left(snowflake_public(id, :k), 2)) > 100 AS unrelated_prefixes
FROM generate_series(912291816210986656, 912291816210986656 + 999) AS g(id);
-- Another key, another public ID: a changed key changes every public ID.
SELECT snowflake_public(912291816210986656, :k2) AS other_key,
       snowflake_public(912291816210986656, :k2) <> snowflake_public(912291816210986656, :k)
           AS differs;
-- Not authentication: another key decodes some texts to some other ID,
-- without an error (this one to a wrong ID).
SELECT snowflake_from_public(snowflake_public(5, :k2), :k) <> 5 AS wrong_id_no_error;
-- NULL in, NULL out (STRICT).
SELECT snowflake_public(NULL, :k) IS NULL AS null_id,
       snowflake_public(1, NULL::bytea) IS NULL AS null_key,
       snowflake_from_public(NULL, :k) IS NULL AS null_text;

------------------------------------------------------------------------------
-- Bad input: the offending text quoted, a DETAIL and a HINT.
-- The wrong number of symbols.
SELECT snowflake_from_public('3C3QF6M9GV7P', :k);
SELECT snowflake_from_public('3C3QF6M9GV7PBD', :k);
SELECT snowflake_from_public('3C3QF6M9GV7PB', :k, check_symbol => true);
SELECT snowflake_from_public('', :k);
-- A character outside the alphabet (U only as a check symbol).
SELECT snowflake_from_public('3C3QF6M9GU7PB', :k);
SELECT snowflake_from_public('3C3QF6M9G 7PB', :k);
SELECT snowflake_from_public('3C3QF6M9GÜ7PB', :k);
-- A first symbol above F: it carries the top 4 of the 64 bits.
SELECT snowflake_from_public('G000000000000', :k);
-- A failed check symbol: one symbol mistyped, and the check symbol itself.
SELECT snowflake_from_public('ord_3C3QF7M9GV7PBD', :k, 'ord', true);
SELECT snowflake_from_public('ord_3C3QF6M9GV7PB*', :k, 'ord', true);
-- A wrong or missing prefix.
SELECT snowflake_from_public('ord_3C3QF6M9GV7PBD', :k, 'usr', true);
SELECT snowflake_from_public('3C3QF6M9GV7PBD', :k, 'ord', true);
SELECT snowflake_from_public('ord_3C3QF6M9GV7PBD', :k, check_symbol => true);
-- A text that stands for no ID under this key.
SELECT snowflake_from_public('FQFMK5KSJ48G6', :k);
-- A key too short, and too long.
SELECT snowflake_public(1, '\x00010203040506070809'::bytea);
SELECT snowflake_from_public('3C3QF6M9GV7PB', '\x000102030405060708090a0b0c0d0e0f10'::bytea);
-- A prefix outside its alphabet; a key typed as text is taken for a prefix.
SELECT snowflake_public(1, :k, 'Ord');
SELECT snowflake_public(1, :k, 'ord_');
SELECT snowflake_from_public('x', :k, 'o-rd');
SELECT snowflake_public(1, '\x000102030405060708090a0b0c0d0e0f');
-- A negative ID.
SELECT snowflake_public(-1, :k);
-- The SQLSTATE of each.
CREATE FUNCTION pg_temp.sqlstate_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE query;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;
SELECT query, pg_temp.sqlstate_of(query) AS sqlstate FROM (VALUES
    ('SELECT snowflake_from_public(''3C3QF6M9GV7P'', ' || :'k' || ')'),
    ('SELECT snowflake_from_public(''3C3QF6M9GU7PB'', ' || :'k' || ')'),
    ('SELECT snowflake_from_public(''G000000000000'', ' || :'k' || ')'),
    ('SELECT snowflake_from_public(''ord_3C3QF7M9GV7PBD'', ' || :'k' || ', ''ord'', true)'),
    ('SELECT snowflake_from_public(''ord_3C3QF6M9GV7PBD'', ' || :'k' || ', ''usr'', true)'),
    ('SELECT snowflake_from_public(''FQFMK5KSJ48G6'', ' || :'k' || ')'),
    ('SELECT snowflake_public(1, ''\x0001''::bytea)'),
    ('SELECT snowflake_public(1, ' || :'k' || ', ''Ord'')'),
    ('SELECT snowflake_public(-1, ' || :'k' || ')'),
    ('SELECT snowflake_public(1)')) v(query);

------------------------------------------------------------------------------
-- snowflake_id.public_key: the key of the functions without one.
-- Not set: a clear ERROR with a HINT.
SELECT snowflake_public(1);
SELECT snowflake_from_public('3C3QF6M9GV7PB');
-- Set (superusers only): the same public IDs as with the key given.
SET snowflake_id.public_key = '000102030405060708090a0b0c0d0e0f';
SELECT snowflake_public(912291816210986656) AS public,
       snowflake_public(912291816210986656, 'ord', true) AS with_prefix_and_check,
       snowflake_public(912291816210986656, prefix => 'ord') AS named,
       snowflake_from_public('3C3QF6M9GV7PB') AS id,
       snowflake_from_public('ord_3C3QF6M9GV7PBD', 'ord', true) AS back;
-- As bytea's output writes it, too.
SET snowflake_id.public_key = '\xA0A1A2A3A4A5A6A7A8A9AAABACADAEAF';
SELECT snowflake_public(912291816210986656) = snowflake_public(912291816210986656, :k2)
    AS same_as_given;
-- A value that is no key is refused, and never quoted.
SET snowflake_id.public_key = 'not a key at all';
SET snowflake_id.public_key = '000102030405060708090a0b0c0d0e';
-- Hidden like a password: not in SHOW ALL or pg_settings, even for a
-- superuser (a dump of the settings does not carry it), but SHOW names it.
SHOW snowflake_id.public_key;
SELECT count(*) AS in_pg_settings FROM pg_settings WHERE name = 'snowflake_id.public_key';
-- A role that is not a superuser uses the key but cannot read or set it.
CREATE ROLE sf_public_user;
SET ROLE sf_public_user;
SELECT snowflake_public(912291816210986656) = snowflake_public(912291816210986656, :k2)
    AS uses_the_key;
-- (The message differs between majors: the SQLSTATE, 42501, does not.)
\set VERBOSITY sqlstate
SHOW snowflake_id.public_key;
SELECT current_setting('snowflake_id.public_key');
\set VERBOSITY default
SELECT count(*) AS in_pg_settings FROM pg_settings WHERE name = 'snowflake_id.public_key';
SET snowflake_id.public_key = '000102030405060708090a0b0c0d0e0f';
RESET ROLE;
-- pg_read_all_settings (and pg_monitor, which holds it) reads every
-- superuser-only setting: this one shows (hidden) to them.
GRANT pg_monitor TO sf_public_user;
SET ROLE sf_public_user;
SHOW snowflake_id.public_key;
SELECT current_setting('snowflake_id.public_key');
RESET ROLE;
REVOKE pg_monitor FROM sf_public_user;
DROP ROLE sf_public_user;
RESET snowflake_id.public_key;
SELECT snowflake_public(1);

-- A key written as text, not bytea, is taken for the prefix (the untyped
-- literal matches text): refused without quoting the key.
\set VERBOSITY default
SELECT snowflake_public(912291816210986656, '\x000102030405060708090a0b0c0d0e0f');
\set VERBOSITY terse
