EXPLAIN EXTENDED SELECT 1; SET spark.sql.shuffle.partitions = 4; SET x; SET; RESET; RESET x
