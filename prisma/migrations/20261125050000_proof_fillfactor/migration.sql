-- Every "Proof" row is updated once, right after it is inserted: the claim's finish (consumed or
-- released). With pages filled to the brim, that update must put the new row version on another page
-- and add it to both indexes; with half of each page left free, PostgreSQL keeps it on the same page
-- as a heap-only tuple and touches no index. Applies to pages written from now on.
ALTER TABLE "Proof" SET (fillfactor = 50);
