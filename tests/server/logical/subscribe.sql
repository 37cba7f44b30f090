-- On a node, once per peer: psql -v sub=NAME -v conninfo='PEER' -v copy_data=false
-- NAME is unique on the peer (it names the peer's replication slot), e.g.
-- node3_from_node1. origin = none: the peer sends only the rows written on
-- it, not those it received from the other nodes (which come from them).
CREATE SUBSCRIPTION :"sub" CONNECTION :'conninfo' PUBLICATION app
    WITH (origin = none, copy_data = :copy_data);
