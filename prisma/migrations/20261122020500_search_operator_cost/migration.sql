-- The directory search's fuzzy name match (`name % $search`, pg_trgm) computes the trigrams of each
-- name it is evaluated on, yet pg_trgm declares its function at the default cost of one operator.
-- A search matching a third of the APIs then looks cheapest as a sequential scan that runs the
-- trigram match on every row (73 ms at 10,000 APIs), instead of OR-ing the two GIN indexes'
-- bitmaps (24 ms). Declaring the real cost lets the planner choose the bitmaps.
ALTER FUNCTION similarity_op(text, text) COST 100;
