MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET t.v = s.v, t.n = t.n + 1 WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v)
