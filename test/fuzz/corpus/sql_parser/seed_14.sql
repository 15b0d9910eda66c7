SELECT * FROM range(10) LATERAL VIEW OUTER explode(array(1, 2)) e AS x
