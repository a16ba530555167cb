-- min_version: 19.17
-- Column codecs (19.1+; this file runs on servers from 19.17, applied
-- when an 18.16 server is upgraded). The microsecond times of one
-- workspace's part are nearly sorted: Delta then ZSTD stores them in a
-- few bits each; the long text columns compress better with ZSTD than
-- with the default LZ4.
ALTER TABLE clicks MODIFY COLUMN ts Int64 CODEC(Delta, ZSTD(1));
ALTER TABLE clicks MODIFY COLUMN ua String CODEC(ZSTD(3));
ALTER TABLE clicks MODIFY COLUMN url String CODEC(ZSTD(3));
ALTER TABLE clicks MODIFY COLUMN referer_url String CODEC(ZSTD(3));
ALTER TABLE lead_events MODIFY COLUMN ts Int64 CODEC(Delta, ZSTD(1));
ALTER TABLE lead_events MODIFY COLUMN metadata String CODEC(ZSTD(3));
ALTER TABLE sale_events MODIFY COLUMN ts Int64 CODEC(Delta, ZSTD(1));
ALTER TABLE sale_events MODIFY COLUMN metadata String CODEC(ZSTD(3));
