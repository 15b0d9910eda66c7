SELECT CAST(a AS DECIMAL(10, 2)), TRY_CAST(b AS map<string, array<struct<x: int NOT NULL COMMENT 'c'>>>), c::bigint FROM t
