WITH x (a) AS (SELECT 1), y AS (VALUES (1, 'a'), (2, 'b')) SELECT * FROM x NATURAL JOIN y
