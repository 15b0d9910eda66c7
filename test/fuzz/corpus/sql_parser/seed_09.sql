SELECT transform(arr, x -> x + 1), aggregate(arr, 0, (acc, x) -> acc + x), m['k'], s.a.b[0].c FROM t
