-- Re-create it on the kept slot: psql -v sub=NAME -v conninfo='PEER'
-- -v slot=SLOT -v applied_up_to=LSN, as unsubscribe.sql printed them. It
-- starts where the old one had applied up to: nothing is copied again
-- (copy_data = false) or applied twice, and every change the peer made
-- meanwhile arrives.
CREATE SUBSCRIPTION :"sub" CONNECTION :'conninfo' PUBLICATION app
    WITH (origin = none, copy_data = false, create_slot = false,
          slot_name = :'slot', enabled = false);
SELECT pg_catalog.pg_replication_origin_advance('pg_' || oid, :'applied_up_to')
FROM pg_catalog.pg_subscription WHERE subname = :'sub';
ALTER SUBSCRIPTION :"sub" ENABLE;
