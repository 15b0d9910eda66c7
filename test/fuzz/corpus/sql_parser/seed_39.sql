t.id = s.id AND s.deleted = false
