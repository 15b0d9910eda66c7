SELECT a <=> b, a == b, a != b, a <> b, a || b, a & b | c ^ ~d, a << 2 >> 1 >>> 1, a DIV 2 % 3
