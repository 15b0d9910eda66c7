UPDATE db.t AS u SET u.a = u.a * 2, s.x = 'y' WHERE id > 10
