MERGE INTO t USING s ON t.id = s.id
