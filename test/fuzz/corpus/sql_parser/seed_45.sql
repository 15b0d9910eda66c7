SELECT extract(YEAR FROM ts), date_part('MONTH', ts) FROM t
